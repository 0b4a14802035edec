package availmon

import (
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

func statusEvent(i int) Event {
	return Event{Type: EventStatusUpdate, Time: time.Unix(int64(i), 0).UTC(), App: fmt.Sprintf("app-%d", i),
		Location: "loc", Status: StatusDown, PreviousStatus: StatusUp}
}

// TestEventLogGrowsThenWraps: the ring holds what was logged, up to its
// size, without allocating it all up front, and then keeps the newest.
func TestEventLogGrowsThenWraps(t *testing.T) {
	l := newEventLog(8)
	var all []Event
	for i := range 5 {
		all = append(all, statusEvent(i))
	}
	all = append(all, Event{Type: EventSystem, Time: time.Unix(5, 0).UTC(), Name: "backend_connected", Backend: "b"})
	l.append(all...)
	if len(l.ring) != 6 {
		t.Fatalf("ring of %d entries after 6 events, want 6 (it grows as events arrive)", len(l.ring))
	}
	got, next, lost, _ := l.read(0, nil)
	if diff := cmp.Diff(all, got); diff != "" || next != 6 || lost {
		t.Fatalf("read from 0: next %d lost %v (-want +got):\n%s", next, lost, diff)
	}
	for i := 6; i < 13; i++ {
		e := statusEvent(i)
		all = append(all, e)
		l.append(e)
	}
	if len(l.ring) != 8 {
		t.Fatalf("ring of %d entries, want its size 8", len(l.ring))
	}
	got, next, lost, _ = l.read(0, nil)
	if diff := cmp.Diff(all[5:], got); diff != "" || next != 13 || !lost {
		t.Fatalf("read from 0 after wrapping: next %d lost %v (-want +got):\n%s", next, lost, diff)
	}
	got, _, lost, _ = l.read(10, nil)
	if diff := cmp.Diff(all[10:], got); diff != "" || lost {
		t.Fatalf("read from 10: lost %v (-want +got):\n%s", lost, diff)
	}
}

// TestEventLogEncodesForFollowers: messages are encoded once when logged
// while a /api/ws client follows, and not at all otherwise.
func TestEventLogEncodesForFollowers(t *testing.T) {
	l := newEventLog(16)
	l.append(statusEvent(0))
	done := l.wantMessages()
	l.append(statusEvent(1))
	done()
	l.append(statusEvent(2))
	entries, _, _, _ := l.readEntries(0, nil)
	for i, want := range []bool{false, true, false} {
		if has := entries[i].msg != nil; has != want {
			t.Errorf("event %d: message encoded %v, want %v", i, has, want)
		}
	}
	if got, want := string(entries[1].message()), string(eventMessage(statusEvent(1))); got != want {
		t.Errorf("message %s, want %s", got, want)
	}
}

// Every event comes out of the log as it went in: status updates kept in
// a log entry's own fields (statuses as a byte), and one whose statuses
// are not among the three kept whole.
func TestEventLogRoundTrip(t *testing.T) {
	l := newEventLog(8)
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	in := []Event{
		{Type: EventStatusUpdate, Time: at, App: "a", Location: "L", Status: StatusUp},
		{Type: EventStatusUpdate, Time: at, App: "a", Location: "L", Status: StatusDown, PreviousStatus: StatusUp},
		{Type: EventStatusUpdate, Time: at, App: "b", Location: "L", Status: StatusUnavailable, PreviousStatus: StatusDown},
		{Type: EventStatusUpdate, Time: at, App: "c", Location: "L", Status: "odd", PreviousStatus: StatusUp},
		{Type: EventSystem, Time: at, Name: "x"},
	}
	l.append(in...)
	got, _, lost, _ := l.read(0, nil)
	if lost {
		t.Fatal("lost events")
	}
	if diff := cmp.Diff(in, got); diff != "" {
		t.Errorf("events (-in +out):\n%s", diff)
	}
}

// A status update is kept in 32 bytes whatever its time, and comes back
// as it went in: the same instant, in the same location.
func TestLogEntryKeepsTime(t *testing.T) {
	if n := unsafe.Sizeof(logEntry{}); n > 32 {
		t.Errorf("a log entry takes %d bytes, want at most 32", n)
	}
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Time{
		time.Date(2026, 11, 25, 14, 0, 0, 123456789, time.UTC),
		time.Date(2026, 11, 25, 14, 0, 0, 1, time.Local),
		time.Now(), // with a monotonic reading, which an event does not need
		time.Date(2026, 11, 25, 14, 0, 0, 0, paris),
		{},
		time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), // past UnixNano's range
		time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		e := Event{Type: EventStatusUpdate, Time: at, App: "a", Location: "l", Status: StatusDown, PreviousStatus: StatusUp}
		l := newEventLog(1)
		l.useNames([]App{{Name: "a", Location: "l"}}, map[string]int{"a": 0})
		l.append(e)
		v := l.logged(0)
		got := v.event()
		if !got.Time.Equal(at) || got.Time.Location() != at.Location() {
			t.Errorf("%v came back as %v", at, got.Time)
		}
		got.Time = at
		if diff := cmp.Diff(e, got); diff != "" {
			t.Errorf("%v: (-in +out)\n%s", at, diff)
		}
	}
}

// Events added ahead of the snapshot that reflects them are not read until
// shown: a follower told of a change must find it in the API.
func TestEventsAddedAreReadOnceShown(t *testing.T) {
	l := newEventLog(8)
	_, _, _, wait := l.readEntries(0, nil)
	next := l.add(Event{Type: EventConfigUpdate, Interval: "30s"})
	if next != 1 {
		t.Fatalf("add returned %d, want 1", next)
	}
	if got, from, _, _ := l.readEntries(0, nil); len(got) != 0 || from != 0 {
		t.Fatalf("before show: %d entries, next %d; want none, 0", len(got), from)
	}
	select {
	case <-wait:
		t.Fatal("followers woken before the events are shown")
	default:
	}
	l.show()
	select {
	case <-wait:
	default:
		t.Fatal("followers not woken by show")
	}
	got, from, _, _ := l.readEntries(0, nil)
	if len(got) != 1 || from != 1 || got[0].event().Interval != "30s" {
		t.Fatalf("after show: %d entries, next %d", len(got), from)
	}
	// A reader already at the snapshot's sequence number reads nothing
	// twice, shown or not.
	l.add(Event{Type: EventConfigUpdate, Interval: "1m"})
	if got, from, _, _ := l.readEntries(2, nil); len(got) != 0 || from != 2 {
		t.Fatalf("from 2 before show: %d entries, next %d", len(got), from)
	}
}

// Entries name their apps by index in the plan's apps: a new plan renames
// the entries held, and an app it no longer has where it was keeps its
// event whole, so that every event reads back as it went in.
func TestEventLogRenamesIntoNewPlan(t *testing.T) {
	at := time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC)
	ev := func(app, loc string, k int) Event {
		return Event{Type: EventStatusUpdate, Time: at.Add(time.Duration(k) * time.Second), App: app, Location: loc, Status: StatusDown, PreviousStatus: StatusUp}
	}
	names := func(apps ...App) ([]App, map[string]int) {
		idx := make(map[string]int)
		for i, a := range apps {
			idx[a.Name] = i
		}
		return apps, idx
	}
	l := newEventLog(6)
	l.useNames(names(App{Name: "a", Location: "l1"}, App{Name: "b", Location: "l2"}, App{Name: "c", Location: "l3"}))
	start := Event{Type: EventOutageStart, Time: at, App: "c", Location: "l3", Outage: &OutageEvent{Kind: "app", Name: "c", Start: at, Full: true}}
	end := Event{Type: EventOutageEnd, Time: at.Add(time.Minute), App: "a", Location: "l1", Outage: &OutageEvent{Kind: "app", Name: "a", Start: at, End: at.Add(time.Minute), Full: true}}
	in := []Event{ev("a", "l1", 0), ev("b", "l2", 1), ev("x", "l9", 2), start, end, {Type: EventConfigUpdate, Time: at, Interval: "1s"}}
	l.append(in...)
	l.useNames(names(App{Name: "c", Location: "l3"}, App{Name: "a", Location: "l1"}, App{Name: "b", Location: "l5"}))
	l.append(ev("b", "l5", 6))
	in = append(in, ev("b", "l5", 6))
	got, _, _, _ := l.read(1, nil) // the first was overwritten
	if diff := cmp.Diff(in[1:], got); diff != "" {
		t.Errorf("events (-in +out):\n%s", diff)
	}
	// b in l2 (moved since), x (never in a plan) and the config update.
	if len(l.rare) != 3 {
		t.Errorf("the log keeps %d events whole, want 3", len(l.rare))
	}
}
