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
}

// logEntry is an event as the log keeps it: a status update in its own
// fields, any other kind (rare) behind other.
type logEntry struct {
	at            int64 // unix nanoseconds, in UTC or time.Local (utc says which)
	app, location string
	other         *Event     // an event other than a status update
	msg           *[]byte    // its /api/ws message, or nil: see eventLog
	status, prev  statusCode // codeNone for no previous status (an app's first check)
	utc           bool
}

func newEventLog(size int) *eventLog {
	return &eventLog{size: uint64(max(size, 1)), notify: make(chan struct{})}
}

func newLogEntry(e *Event, encode bool) logEntry {
	var le logEntry
	st, ok1 := exactCode(e.Status)
	prev, ok2 := exactCode(e.PreviousStatus)
	// The time is kept as a number, and its location as a flag: 64-byte
	// entries rather than 80, the log having room for twice the apps. An
	// event in another location (a test clock's, say), or out of the
	// range of UnixNano, keeps its own.
	loc := e.Time.Location()
	if e.Type == EventStatusUpdate && ok1 && ok2 && (loc == time.UTC || loc == time.Local) && time.Unix(0, e.Time.UnixNano()).Equal(e.Time) &&
		e.Interval == "" && e.PreviousInterval == "" && e.Change == nil && e.Name == "" && e.Backend == "" {
		le = logEntry{at: e.Time.UnixNano(), utc: loc == time.UTC, app: e.App, location: e.Location, status: st, prev: prev}
	} else {
		c := *e
		le = logEntry{other: &c}
	}
	if encode {
		msg := eventMessage(*e)
		le.msg = &msg
	}
	return le
}

// message returns the entry's /api/ws message, or nil when it was not
// encoded.
func (le *logEntry) message() []byte {
	if le.msg == nil {
		return nil
	}
	return *le.msg
}

// event returns the entry as an Event.
func (le *logEntry) event() Event {
	if le.other != nil {
		return *le.other
	}
	return Event{Type: EventStatusUpdate, Time: unixTime(le.at, le.utc), App: le.app, Location: le.location,
		Status: le.status.status(), PreviousStatus: le.prev.status()}
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
		le := newLogEntry(&evs[i], encode)
		if n := uint64(len(l.ring)); n < l.size {
			if n == uint64(cap(l.ring)) {
				// Grown by append, the last growth could pass the size
				// by a quarter, kept for good.
				l.ring = slices.Grow(l.ring, int(min(max(2*n, 64), l.size)-n))
			}
			l.ring = append(l.ring, le) // not wrapped yet: index l.next
		} else {
			l.ring[l.next%l.size] = le
		}
		l.next++
	}
	return l.next
}

// readEntries appends to dst the entries from sequence number from on. It
// returns the sequence number to read from next, whether events between from
// and the oldest one still held were lost, and a channel that is closed when
// more events arrive.
func (l *eventLog) readEntries(from uint64, dst []logEntry) (entries []logEntry, next uint64, lost bool, wait <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.next > l.size && from < l.next-l.size {
		from, lost = l.next-l.size, true
	}
	for s := from; s < l.shown; s++ {
		dst = append(dst, l.ring[s%l.size])
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
	var buf []logEntry
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
func releaseEntries(buf []logEntry) []logEntry {
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
