package availmon

import (
	"slices"
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
	mu      sync.Mutex
	ring    []logEntry // grows to size, then wraps
	size    uint64
	next    uint64        // sequence number of the next event
	notify  chan struct{} // closed and replaced on every append
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

// append logs evs and returns the sequence number right after them, taken
// under the same lock, so that a concurrent append cannot slip in between.
func (l *eventLog) append(evs ...Event) (next uint64) {
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
	close(l.notify)
	l.notify = make(chan struct{})
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
	for s := from; s < l.next; s++ {
		dst = append(dst, l.ring[s%l.size])
	}
	return dst, l.next, lost, l.notify
}

// cursor returns the sequence number of the next event to be appended.
func (l *eventLog) cursor() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next
}
