package availmon

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// pull returns a function that takes the subscription's next event or error,
// failing the test when none comes in time.
func pull(t *testing.T, ctx context.Context, m *Monitor, f EventFilter) (next func() (Event, error), stop func()) {
	t.Helper()
	type item struct {
		ev  Event
		err error
	}
	ch := make(chan item)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range m.Subscribe(ctx, f) {
			select {
			case ch <- item{ev, err}:
			case <-ctx.Done():
				return
			}
		}
		close(ch)
	}()
	next = func() (Event, error) {
		t.Helper()
		select {
		case it, ok := <-ch:
			if !ok {
				t.Fatal("the subscription ended")
			}
			return it.ev, it.err
		case <-time.After(10 * time.Second):
			t.Fatal("no event from the subscription")
		}
		return Event{}, nil
	}
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return next, stop
}

// noOutages skips the outage events of a subscription, for the tests of the
// other events (TestOutageEvents tests them).
func noOutages(next func() (Event, error), _ func()) func() (Event, error) {
	return func() (Event, error) {
		for {
			ev, err := next()
			if err != nil || ev.Outage == nil {
				return ev, err
			}
		}
	}
}

func TestSubscribeSnapshotThenLive(t *testing.T) {
	tm := newTestMonitor(t)
	tm.src.Set("checkout", StatusUp, 0)
	tm.src.Set("search", StatusDown, 0)
	tm.src.Set("billing", StatusUp, 0)
	tm.scrape(t)
	at := tm.clock.Now()

	next := noOutages(pull(t, context.Background(), tm.Monitor, EventFilter{}))
	var snap []Event
	for range 3 {
		ev, err := next()
		if err != nil {
			t.Fatalf("snapshot: %v", err)
		}
		snap = append(snap, ev)
	}
	want := []Event{
		{Type: EventStatusUpdate, Time: at, App: "checkout", Location: "Tel Aviv", Status: StatusUp},
		{Type: EventStatusUpdate, Time: at, App: "search", Location: "Tel Aviv", Status: StatusDown},
		{Type: EventStatusUpdate, Time: at, App: "billing", Location: "Frankfurt", Status: StatusUp},
	}
	if diff := cmp.Diff(want, snap); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}

	tm.clock.Advance(time.Minute)
	tm.src.Set("search", StatusUp, 0)
	tm.scrape(t)
	ev, err := next()
	if err != nil {
		t.Fatal(err)
	}
	wantEv := Event{Type: EventStatusUpdate, Time: tm.clock.Now(), App: "search", Location: "Tel Aviv",
		Status: StatusUp, PreviousStatus: StatusDown}
	if diff := cmp.Diff(wantEv, ev); diff != "" {
		t.Errorf("live event (-want +got):\n%s", diff)
	}

	if err := tm.SetInterval(45 * time.Second); err != nil {
		t.Fatal(err)
	}
	ev, err = next()
	if err != nil || ev.Type != EventConfigUpdate || ev.Interval != "45s" || ev.PreviousInterval != "30s" {
		t.Errorf("after SetInterval got %+v, %v; want a config_update from 30s to 45s", ev, err)
	}
}

func TestSubscribeFilter(t *testing.T) {
	tm := newTestMonitor(t)
	tm.scrape(t)
	next := noOutages(pull(t, context.Background(), tm.Monitor, EventFilter{Locations: []string{"Frankfurt"}}))
	ev, err := next()
	if err != nil || ev.App != "billing" {
		t.Fatalf("first event %+v, %v; want billing's state", ev, err)
	}
	tm.src.Set("checkout", StatusDown, 0) // filtered out
	tm.src.Set("billing", StatusDown, 0)
	tm.scrape(t)
	ev, err = next()
	if err != nil || ev.App != "billing" || ev.Status != StatusDown {
		t.Fatalf("got %+v, %v; want billing down and nothing of Tel Aviv", ev, err)
	}
	if err := tm.SetInterval(time.Minute); err != nil {
		t.Fatal(err)
	}
	if ev, err := next(); err != nil || ev.Type != EventConfigUpdate {
		t.Fatalf("got %+v, %v; config_update passes every filter", ev, err)
	}
}

// Before the first cycle no status is known, so a subscriber is told
// nothing of the apps yet; the first event of an app is its first check, at
// that check's time, without a previous status.
func TestSubscribeBeforeFirstCycle(t *testing.T) {
	tm := newTestMonitor(t)
	tm.src.Set("checkout", StatusUp, 0)

	// A subscription whose context has ended yields what the monitor has
	// to tell at once, then the context's error.
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for ev, err := range tm.Subscribe(ended, EventFilter{}) {
		if err == nil {
			t.Errorf("before the first cycle: %+v; want no event until a check has produced a status", ev)
		}
	}

	next, _ := pull(t, context.Background(), tm.Monitor, EventFilter{Apps: []string{"checkout"}})
	tm.clock.Advance(time.Minute)
	tm.scrape(t)
	ev, err := next()
	if err != nil {
		t.Fatal(err)
	}
	want := Event{Type: EventStatusUpdate, Time: tm.clock.Now(), App: "checkout", Location: "Tel Aviv", Status: StatusUp}
	if diff := cmp.Diff(want, ev); diff != "" {
		t.Errorf("first event (-want +got):\n%s", diff)
	}
}

// A subscriber that starts while cycles commit sees each change exactly
// once: every event's previous status is the status before it, and the
// first event of the app has none.
func TestSubscribeNoGapNoRepeat(t *testing.T) {
	tm := newTestMonitor(t, bigEventBuffer)
	defer flipWhileTesting(t, tm, "checkout")()
	for range 5 {
		ctx, cancel := context.WithCancel(context.Background())
		var prev Status
		n := 0
		for ev, err := range tm.Subscribe(ctx, EventFilter{Apps: []string{"checkout"}}) {
			if err != nil {
				t.Fatal(err)
			}
			if ev.Type != EventStatusUpdate {
				continue // backend_connected after the first cycle
			}
			if ev.PreviousStatus != prev {
				t.Fatalf("after %v came a change from %v to %v: an event was lost or repeated", prev, ev.PreviousStatus, ev.Status)
			}
			prev = ev.Status
			if n++; n == 20 {
				break
			}
		}
		cancel()
	}
}

func TestSubscribeEnds(t *testing.T) {
	t.Run("shutdown", func(t *testing.T) {
		tm := newTestMonitor(t)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- tm.Run(ctx) }()
		waitFor(t, "the first cycle", func() bool { return tm.snap.Load().seq > 0 })
		var last Event
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			for ev, err := range tm.Subscribe(context.Background(), EventFilter{}) {
				if err != nil {
					t.Errorf("unexpected error %v", err)
				}
				last = ev
			}
		}()
		cancel()
		<-ended
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if last.Type != EventSystem || last.Name != eventShutdown {
			t.Errorf("last event %+v; want the shutdown system_event", last)
		}
	})
	t.Run("context", func(t *testing.T) {
		tm := newTestMonitor(t)
		tm.scrape(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var errs []error
		for ev, err := range tm.Subscribe(ctx, EventFilter{}) {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if ev.App == "billing" { // the last of the snapshot
				cancel()
			}
		}
		if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
			t.Errorf("errors %v; want context.Canceled once", errs)
		}
	})
	t.Run("lost", func(t *testing.T) {
		tm := newTestMonitor(t, func(o *Options) { o.EventBuffer = 4 })
		tm.scrape(t)
		var got []error
		i := 0
		for _, err := range tm.Subscribe(context.Background(), EventFilter{}) {
			if err != nil {
				got = append(got, err)
				continue
			}
			if i++; i == 1 {
				// While the consumer is busy, more events than the buffer
				// holds are logged.
				for j := range 6 {
					tm.src.Set("checkout", []Status{StatusUp, StatusDown}[j%2], 0)
					tm.scrape(t)
				}
			}
		}
		if len(got) != 1 || !errors.Is(got[0], ErrEventsLost) {
			t.Errorf("errors %v; want ErrEventsLost once", got)
		}
	})
	t.Run("break", func(t *testing.T) {
		tm := newTestMonitor(t)
		tm.scrape(t)
		n := 0
		for _, err := range tm.Subscribe(context.Background(), EventFilter{}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			break
		}
		if n != 1 {
			t.Errorf("got %d events after break", n)
		}
	})
}

// bigEventBuffer keeps a reader on a loaded machine from falling a whole
// buffer behind the back-to-back cycles of flipWhileTesting: those tests
// are about gaps and repeats, not about slow readers.
func bigEventBuffer(o *Options) { o.EventBuffer = 1 << 16 }

// flipWhileTesting runs cycles back to back, flipping app between up and
// down each time, until the returned function is called.
func flipWhileTesting(t *testing.T, tm *testMonitor, app string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			tm.src.Set(app, []Status{StatusUp, StatusDown}[i%2], 0)
			tm.scrape(t)
		}
	})
	return func() { close(done); wg.Wait() }
}
