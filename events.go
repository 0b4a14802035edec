package availmon

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/availmon/availmon/internal/ledger"
)

// EventType names the kind of an Event, as sent in the `type` member of an
// /api/ws message.
type EventType string

// The event types of the interface.
const (
	EventStatusUpdate EventType = "status_update" // an app's status changed
	EventConfigUpdate EventType = "config_update" // the scrape interval, or the set of apps, changed
	EventSystem       EventType = "system_event"  // a backend (dis)connected, or shutdown
)

// The event types of availability over time: an outage of an app, a
// location or a service began or ended (docs/api.md).
const (
	EventOutageStart EventType = "outage_start"
	EventOutageEnd   EventType = "outage_end"
)

// EventObjectiveState: an objective's state changed (ok, at_risk,
// breached; docs/api.md).
const EventObjectiveState EventType = "objective_state"

// ObjectiveEvent is the change an objective_state event announces.
type ObjectiveEvent struct {
	Name                 string
	State, PreviousState string // ok, at_risk or breached
}

// eventShutdown is the Name of the system_event Run logs when it ends.
const eventShutdown = "shutdown"

// Event is something that happened to the monitor. Which fields are set
// depends on Type.
type Event struct {
	Type EventType
	Time time.Time

	// status_update
	App, Location  string
	Status         Status
	PreviousStatus Status // empty on an app's first check, and in a subscription's first state of an app

	// config_update: Interval and PreviousInterval when the interval
	// changed; Change when apps, locations or backends did (Reconfigure,
	// discovery).
	Interval, PreviousInterval string
	Change                     *ConfigChange

	// system_event
	Name    string // backend_connected, backend_disconnected, shutdown
	Backend string

	// outage_start, outage_end. An app's outage also sets App and
	// Location, a location's Location, so that filters apply to them.
	Outage *OutageEvent

	// objective_state
	Objective *ObjectiveEvent
}

// OutageEvent is the outage an outage_start or outage_end event announces:
// a period of down time of an app (its raw checks), of a location (at least
// one app down) or of a service (below its quorum).
type OutageEvent struct {
	Kind  string // "app", "location" or "service"
	Name  string
	Start time.Time
	End   time.Time // outage_end only
	// Full is a location's: every app with a known state was down at some
	// time of the outage (so far); an app's and a service's outages are
	// always full.
	Full bool
}

// eventLog is a bounded ring of recent events with sequence numbers. Readers
// follow it at their own pace and never hold up the writer: one that falls
// more than the ring's size behind learns that it lost events.
//
// The ring is sized for a burst of every app changing at once (twice the
// apps by default), yet most of it is usually empty or holds the first
// checks' updates: so it grows as events arrive, up to its size, and its
// entries are a third of an Event. An entry's /api/ws message is encoded
// when it is logged only while a /api/ws client follows the log (one
// encoding for every client); otherwise nobody may ever read it, and a
// client that does encodes it itself.
type eventLog struct {
	mu   sync.Mutex
	ring []logEntry // grows to size, then wraps
	size uint64
	next uint64 // sequence number of the next event
	// shown is the sequence number up to which followers read: events
	// added ahead of the snapshot that reflects them (add) are shown once
	// it is published (show), so that a client told of a change finds it
	// in the API.
	shown   uint64
	notify  chan struct{} // closed and replaced whenever more are shown
	encoded atomic.Int64  // followers that want messages (/api/ws clients)
	// names are the plan's apps that entries name by index.
	names nameTable
	// rare holds, by sequence number, what an entry has besides a status
	// update: an event of another kind or form, an encoded message.
	rare map[uint64]rareEntry
}

// nameTable is a plan's apps, which the log shares (never copies): an
// entry names its app by index, so that the ring holds no pointer and a
// collection does not scan it (the pacer sizes the heap's headroom from
// what collections scan).
type nameTable struct {
	apps  []App
	index map[string]int
}

// logEntry is an event as the log keeps it: a status update of an app of
// a name table in its own fields, anything else (rare) in the log's rare.
type logEntry struct {
	at           int64  // unix nanoseconds, in UTC or time.Local (utc says which)
	start        int64  // an app's outage_end: the outage's start, as at
	app          uint32 // index in the log's names
	kind         entryKind
	full         bool       // an outage's Full
	status, prev statusCode // codeNone for no previous status (an app's first check)
	utc          bool
	rare         bool // the log's rare holds the event or its message
}

// entryKind is the kind of event an entry that is not rare holds.
type entryKind uint8

const (
	kindStatus      entryKind = iota // a status update
	kindOutageStart                  // an app's outage_start
	kindOutageEnd                    // an app's outage_end
)

// rareEntry is what an entry holds besides a status update's fields.
type rareEntry struct {
	other *Event  // an event other than a status update of a known app
	msg   *[]byte // its /api/ws message, or nil: see eventLog
}

// loggedEvent is an entry as a reader gets it, with its names.
type loggedEvent struct {
	le            logEntry
	app, location string
	rareEntry
}

func newEventLog(size int) *eventLog {
	return &eventLog{size: uint64(max(size, 1)), notify: make(chan struct{})}
}

// useNames makes apps (a plan's, with its index) the table entries name
// their apps in. The entries held are renamed into it: an app the plan
// no longer has (or has elsewhere) keeps its event whole, so that the
// log never holds on to an earlier plan.
func (l *eventLog) useNames(apps []App, index map[string]int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.names
	if len(old.apps) == len(apps) && (len(apps) == 0 || &old.apps[0] == &apps[0]) {
		return
	}
	l.names = nameTable{apps: apps, index: index}
	for k := range l.ring {
		le := &l.ring[k]
		if le.rare && l.rare[l.seqOf(uint64(k))].other != nil {
			continue
		}
		a := &old.apps[le.app]
		if j, ok := index[a.Name]; ok && apps[j].Location == a.Location {
			le.app = uint32(j)
			continue
		}
		seq := l.seqOf(uint64(k))
		re := l.rare[seq]
		v := loggedEvent{le: *le, app: a.Name, location: a.Location}
		ev := v.event()
		re.other = &ev
		l.setRare(seq, re)
		le.rare = true
	}
}

// seqOf returns the sequence number of the entry at index k of the ring;
// under mu.
func (l *eventLog) seqOf(k uint64) uint64 {
	if l.next <= l.size {
		return k
	}
	// The ring is full: it holds next-size .. next-1.
	base := l.next - l.size
	return base + (k+l.size-base%l.size)%l.size
}

// setRare keeps re for the entry of sequence number seq; under mu.
func (l *eventLog) setRare(seq uint64, re rareEntry) {
	if l.rare == nil {
		l.rare = make(map[uint64]rareEntry)
	}
	l.rare[seq] = re
}

// entry makes e's entry, and what it has besides one.
func (l *eventLog) entry(e *Event, encode bool) (logEntry, rareEntry) {
	var le logEntry
	var re rareEntry
	le, known := l.compact(e)
	if !known {
		le = logEntry{}
		c := *e
		re.other = &c
	}
	if encode {
		msg := eventMessage(*e)
		re.msg = &msg
	}
	le.rare = re.other != nil || re.msg != nil
	return le, re
}

// compact returns e as an entry that holds no pointer, and whether it is
// one: a status update or an app's outage (by far the most events) of an
// app of the log's names, at times that fit UnixNano, in UTC or
// time.Local. Anything else is kept whole.
func (l *eventLog) compact(e *Event) (logEntry, bool) {
	i, ok := l.names.index[e.App]
	if !ok || i < 0 || i >= len(l.names.apps) || l.names.apps[i].Location != e.Location || !nanoTime(e.Time) ||
		e.Interval != "" || e.PreviousInterval != "" || e.Change != nil || e.Name != "" || e.Backend != "" || e.Objective != nil {
		return logEntry{}, false
	}
	utc := e.Time.Location() == time.UTC
	le := logEntry{at: e.Time.UnixNano(), utc: utc, app: uint32(i)}
	switch o := e.Outage; e.Type {
	case EventStatusUpdate:
		st, ok1 := exactCode(e.Status)
		prev, ok2 := exactCode(e.PreviousStatus)
		le.status, le.prev = st, prev
		return le, ok1 && ok2 && o == nil
	case EventOutageStart, EventOutageEnd:
		if o == nil || o.Kind != ledger.App.String() || o.Name != e.App || e.Status != "" || e.PreviousStatus != "" ||
			!nanoTime(o.Start) || (o.Start.Location() == time.UTC) != utc {
			return logEntry{}, false
		}
		le.full, le.start = o.Full, o.Start.UnixNano()
		le.kind = kindOutageStart
		if e.Type == EventOutageStart {
			return le, o.End.IsZero() && le.start == le.at
		}
		le.kind = kindOutageEnd
		return le, o.End.Equal(e.Time) && o.End.Location() == e.Time.Location()
	}
	return logEntry{}, false
}

// nanoTime reports whether t comes back from unixTime as it is: in UTC or
// time.Local, within the range of UnixNano.
func nanoTime(t time.Time) bool {
	loc := t.Location()
	return (loc == time.UTC || loc == time.Local) && time.Unix(0, t.UnixNano()).Equal(t)
}

// logged returns the entry of sequence number seq with its names; under mu.
func (l *eventLog) logged(seq uint64) loggedEvent {
	le := l.ring[seq%l.size]
	v := loggedEvent{le: le}
	if le.rare {
		v.rareEntry = l.rare[seq]
	}
	if v.other == nil {
		a := &l.names.apps[le.app]
		v.app, v.location = a.Name, a.Location
	}
	return v
}

// event returns the entry as an Event.
func (v *loggedEvent) event() Event {
	if v.other != nil {
		return *v.other
	}
	at := unixTime(v.le.at, v.le.utc)
	switch v.le.kind {
	case kindOutageStart, kindOutageEnd:
		o := &OutageEvent{Kind: ledger.App.String(), Name: v.app, Start: unixTime(v.le.start, v.le.utc), Full: v.le.full}
		ev := Event{Type: EventOutageStart, Time: at, App: v.app, Location: v.location, Outage: o}
		if v.le.kind == kindOutageEnd {
			ev.Type, o.End = EventOutageEnd, at
		}
		return ev
	}
	return Event{Type: EventStatusUpdate, Time: at, App: v.app, Location: v.location,
		Status: v.le.status.status(), PreviousStatus: v.le.prev.status()}
}

// message returns the entry's /api/ws message, or nil when it was not
// encoded.
func (v *loggedEvent) message() []byte {
	if v.msg == nil {
		return nil
	}
	return *v.msg
}

// wantMessages registers a follower that sends /api/ws messages until
// the returned function is called.
func (l *eventLog) wantMessages() (done func()) {
	l.encoded.Add(1)
	return func() { l.encoded.Add(-1) }
}

// append logs evs, shown at once, and returns the sequence number right
// after them.
func (l *eventLog) append(evs ...Event) (next uint64) {
	next = l.add(evs...)
	l.show()
	return next
}

// show lets followers read every event added so far.
func (l *eventLog) show() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown == l.next {
		return
	}
	l.shown = l.next
	close(l.notify)
	l.notify = make(chan struct{})
}

// add logs evs without showing them and returns the sequence number right
// after them, taken under the same lock, so that a concurrent add cannot
// slip in between.
func (l *eventLog) add(evs ...Event) (next uint64) {
	encode := l.encoded.Load() > 0
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(evs) == 0 {
		return l.next
	}
	for i := range evs {
		le, re := l.entry(&evs[i], encode)
		if n := uint64(len(l.ring)); n < l.size {
			if n == uint64(cap(l.ring)) {
				// Grown by append, the last growth could pass the size
				// by a quarter, kept for good.
				l.ring = slices.Grow(l.ring, int(min(max(2*n, 64), l.size)-n))
			}
			l.ring = append(l.ring, le) // not wrapped yet: index l.next
		} else {
			if l.ring[l.next%l.size].rare {
				delete(l.rare, l.next-l.size)
			}
			l.ring[l.next%l.size] = le
		}
		if le.rare {
			l.setRare(l.next, re)
		}
		l.next++
	}
	return l.next
}

// readEntries appends to dst the entries from sequence number from on. It
// returns the sequence number to read from next, whether events between from
// and the oldest one still held were lost, and a channel that is closed when
// more events arrive.
func (l *eventLog) readEntries(from uint64, dst []loggedEvent) (entries []loggedEvent, next uint64, lost bool, wait <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.next > l.size && from < l.next-l.size {
		from, lost = l.next-l.size, true
	}
	for s := from; s < l.shown; s++ {
		dst = append(dst, l.logged(s))
	}
	return dst, max(from, l.shown), lost, l.notify
}

// cursor returns the sequence number of the next event to be appended.
func (l *eventLog) cursor() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next
}

// ErrEventsLost ends a subscription whose consumer fell more than
// Options.EventBuffer events behind: the events it missed are gone, so it
// must subscribe again to start from a fresh snapshot.
var ErrEventsLost = errors.New("availmon: subscriber fell behind: events were lost")

// errStopped is how follow reports that its consumer stopped asking.
var errStopped = errors.New("availmon: subscriber stopped")

// EventFilter narrows the status_update events of a subscription to some
// apps and locations, and the outage events of apps with them; a
// location's outage events pass when Locations names it and Apps is empty,
// a service's only when both are; config_update and system_event always
// pass. An empty list means all.
type EventFilter struct {
	Apps      []string
	Locations []string
}

// eventFilter is an EventFilter as sets, checked once per event.
type eventFilter struct {
	apps, locations map[string]bool // nil: all
}

func (f EventFilter) compile() eventFilter {
	set := func(names []string) map[string]bool {
		if len(names) == 0 {
			return nil
		}
		s := make(map[string]bool, len(names))
		for _, n := range names {
			s[n] = true
		}
		return s
	}
	return eventFilter{apps: set(f.Apps), locations: set(f.Locations)}
}

func (f eventFilter) pass(e *Event) bool {
	switch {
	case e.Type == EventStatusUpdate || e.Outage != nil && e.Outage.Kind == "app":
		return (f.apps == nil || f.apps[e.App]) && (f.locations == nil || f.locations[e.Location])
	case e.Outage != nil && e.Outage.Kind == "location":
		return f.apps == nil && (f.locations == nil || f.locations[e.Location])
	case e.Outage != nil, e.Objective != nil:
		return f.apps == nil && f.locations == nil
	}
	return true
}

// Subscribe follows the monitor's events, as /api/ws does: first one
// status_update per app (passing f) checked so far with its current state,
// then every event after the snapshot that state came from, in order.
// Nothing is lost or repeated between the two parts. (/api/ws also sends a
// snapshot_complete system_event between them, with counts an Event has no
// field for; Subscribe yields none.) An app not checked yet (before the
// first cycle, or added since the last) has no state to tell: its first
// event is its first check. So an app's first event has no PreviousStatus, and every
// later one has the Status of the one before.
//
// The sequence ends after the shutdown system_event of Run, when ctx ends
// (yielding ctx's error), or, if the loop body takes so long that more than
// Options.EventBuffer events pile up, with ErrEventsLost. The monitor never
// waits for a subscriber: a slow one loses, it does not slow the cycles.
// Each range over the sequence is a new subscription.
func (m *Monitor) Subscribe(ctx context.Context, f EventFilter) iter.Seq2[Event, error] {
	filter := f.compile()
	return func(yield func(Event, error) bool) {
		err := m.follow(ctx, filter, func(e *Event, _ []byte) bool { return yield(*e, nil) }, nil)
		if err != nil && !errors.Is(err, errStopped) {
			yield(Event{}, err)
		}
	}
}

// snapshotEnd is told where a subscription's snapshot ends: the snapshot
// it came from, how many status updates it yielded, and how many apps
// (passing the filter) it left out because no check has given them a
// status yet. It returns false to stop.
type snapshotEnd func(s *snapshot, sent, unchecked int) bool

// follow calls yield with the snapshot's status updates, then end (when
// not nil), then yield with every logged event after that snapshot, until
// the shutdown event (nil), ctx's end (its error), lost events
// (ErrEventsLost), or yield or end returning false (errStopped). msg is
// the event's /api/ws message when the log has one already encoded, nil
// for snapshot entries. The entries yield sees are only valid during the
// call.
func (m *Monitor) follow(ctx context.Context, filter eventFilter, yield func(e *Event, msg []byte) bool, end snapshotEnd) error {
	s := m.snap.Load()
	sent, unchecked := 0, 0
	for i := range s.apps {
		a := &s.p.apps[i]
		ev := Event{Type: EventStatusUpdate, Time: s.apps[i].lastCheckTime(), App: a.Name, Location: a.Location, Status: s.apps[i].status()}
		if !filter.pass(&ev) {
			continue
		}
		if !s.apps[i].checked() {
			// No check has given it a status yet: its first check is its
			// first event, whose previous status is rightly none.
			unchecked++
			continue
		}
		if ev.Time.IsZero() { // a check that carried no time
			ev.Time = s.made
		}
		if !yield(&ev, nil) {
			return errStopped
		}
		sent++
	}
	if end != nil && !end(s, sent, unchecked) {
		return errStopped
	}

	next := s.eventSeq
	var buf []loggedEvent
	var ev Event // one for every entry: yield takes its address
	for {
		var lost bool
		var wait <-chan struct{}
		from := next
		buf, next, lost, wait = m.events.readEntries(next, buf[:0])
		if lost {
			return ErrEventsLost
		}
		for i := range buf {
			e := &buf[i]
			ev = e.event()
			shutdown := ev.Type == EventSystem && ev.Name == eventShutdown
			if shutdown && from+uint64(i) < m.run.from.Load() {
				// The end of an earlier Run: Run has started again since,
				// and the snapshot this subscriber started from postdates it.
				continue
			}
			if filter.pass(&ev) && !yield(&ev, e.message()) {
				return errStopped
			}
			if shutdown {
				return nil
			}
		}
		buf = releaseEntries(buf)
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// releaseEntries lets go of what a read copied out of the log. A burst grows
// the copy; an idle subscriber should not keep a burst's worth of entries
// (1,000 /api/ws clients after a 1,000-app burst kept about 200 MiB).
func releaseEntries(buf []loggedEvent) []loggedEvent {
	if cap(buf) > 256 {
		return nil
	}
	clear(buf) // the events' strings and messages
	return buf[:0]
}

// Status changes are logged as one summary line per cycle at info, and one
// line per app at debug: a flapping fleet of thousands of apps would
// otherwise write thousands of lines a cycle.

// changeNames is how many changed apps the summary line names.
const changeNames = 5

// logAppChange is the debug line for one app's change. Attributes with
// nothing to say (no previous status on a first check, no error) are left
// out rather than written empty.
func (m *Monitor) logAppChange(app *App, ev *Event, errText string) {
	if !m.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	attrs := []any{"app", app.Name, "location", app.Location, "status", ev.Status}
	if ev.PreviousStatus != "" {
		attrs = append(attrs, "previous_status", ev.PreviousStatus)
	}
	if errText != "" {
		attrs = append(attrs, "err", errText)
	}
	m.log.Debug("status changed", attrs...)
}

// logChangeSummary is the cycle's one info line about status changes: how
// many apps changed, to which state, and the first few of them.
func (m *Monitor) logChangeSummary(evs []Event) {
	var changed, up, down, unavail int
	var names []string
	for i := range evs {
		e := &evs[i]
		if e.Type != EventStatusUpdate {
			continue
		}
		changed++
		switch e.Status {
		case StatusUp:
			up++
		case StatusDown:
			down++
		default:
			unavail++
		}
		if len(names) < changeNames {
			from := "new"
			if e.PreviousStatus != "" {
				from = string(e.PreviousStatus)
			}
			names = append(names, fmt.Sprintf("%s@%s %s->%s", e.App, e.Location, from, e.Status))
		}
	}
	if changed == 0 {
		return
	}
	apps := strings.Join(names, ", ")
	if more := changed - len(names); more > 0 {
		apps += fmt.Sprintf(" and %d more", more)
	}
	m.log.Info("status changes", "changed", changed, "up", up, "down", down, "unavailable", unavail, "apps", apps)
}
