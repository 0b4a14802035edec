package availmon

import (
	"context"
	"errors"
	"iter"
)

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
	case e.Outage != nil:
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
			if shutdown && from+uint64(i) < m.runFrom.Load() {
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
