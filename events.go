package availmon

import (
	"sync"
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
	PreviousStatus Status // empty on an app's first check

	// config_update: Interval and PreviousInterval when the interval
	// changed; Change when apps, locations or backends did (Reconfigure,
	// discovery).
	Interval, PreviousInterval string
	Change                     *ConfigChange

	// system_event
	Name    string // backend_connected, backend_disconnected, shutdown
	Backend string
}

// eventLog is a bounded ring of recent events with sequence numbers. Readers
// follow it at their own pace and never hold up the writer: one that falls
// more than the ring's size behind learns that it lost events.
type eventLog struct {
	mu     sync.Mutex
	ring   []logEntry
	next   uint64        // sequence number of the next event
	notify chan struct{} // closed and replaced on every append
}

// logEntry is an event with its /api/ws message, encoded once for every
// client.
type logEntry struct {
	ev  Event
	msg []byte
}

func newEventLog(size int) *eventLog {
	return &eventLog{ring: make([]logEntry, size), notify: make(chan struct{})}
}

// append logs evs and returns the sequence number right after them, taken
// under the same lock, so that a concurrent append cannot slip in between.
func (l *eventLog) append(evs ...Event) (next uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(evs) == 0 {
		return l.next
	}
	for _, e := range evs {
		l.ring[l.next%uint64(len(l.ring))] = logEntry{ev: e, msg: eventMessage(e)}
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
	size := uint64(len(l.ring))
	if l.next > size && from < l.next-size {
		from, lost = l.next-size, true
	}
	for s := from; s < l.next; s++ {
		dst = append(dst, l.ring[s%size])
	}
	return dst, l.next, lost, l.notify
}

// cursor returns the sequence number of the next event to be appended.
func (l *eventLog) cursor() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next
}
