package availmontest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// guard bounds a wait for what the monitor must do by itself, so that a
// monitor that does not fails the test rather than hanging it. It is not a
// measurement: the waits end as soon as the monitor has done it.
func guard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// running is a Monitor on a fake clock, running until the test ends.
type running struct {
	m     *availmon.Monitor
	clock *availmontest.Clock
	src   *availmontest.Source
	h     http.Handler
}

// startMonitor runs a Monitor of one app, checked every minute, on a fake
// clock at t0, and waits for its first cycle; timers is the number of
// timers it keeps (1, or 2 with a Store).
func startMonitor(t *testing.T, timers int, opts ...func(*availmon.Options)) *running {
	t.Helper()
	r := &running{clock: availmontest.NewClock(t0), src: availmontest.NewSource()}
	r.src.Set("checkout", availmon.Result{Status: availmon.StatusUp})
	o := availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818}},
		Apps:      []availmon.App{{Name: "checkout", Location: "Tel Aviv"}},
		Source:    r.src,
		Clock:     r.clock,
		Interval:  time.Minute,
	}
	for _, f := range opts {
		f(&o)
	}
	m, err := availmon.New(o)
	if err != nil {
		t.Fatal(err)
	}
	r.m, r.h = m, m.Handler()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	if err := r.clock.BlockUntil(guard(t), timers); err != nil {
		t.Fatalf("the first cycle did not end: %v", err)
	}
	return r
}

// health is /health's HTTP status and status member, and /api/status's
// system_status.
func (r *running) health(t *testing.T) (code int, status, system string) {
	t.Helper()
	rec := httptest.NewRecorder()
	r.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/health", nil))
	var h struct{ Status string }
	if err := json.Unmarshal(rec.Body.Bytes(), &h); err != nil {
		t.Fatal(err)
	}
	st := httptest.NewRecorder()
	r.h.ServeHTTP(st, httptest.NewRequest(http.MethodGet, "/api/status", nil))
	var s struct {
		Data struct {
			SystemStatus string `json:"system_status"`
		}
	}
	if err := json.Unmarshal(st.Body.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	return rec.Code, h.Status, s.Data.SystemStatus
}

// A fake clock that runs ten intervals ahead runs the cycle that is due,
// so /health stays healthy: the cycle and the health deadline both follow
// the clock.
func TestClockAheadKeepsHealthy(t *testing.T) {
	r := startMonitor(t, 1)
	r.clock.Advance(10 * time.Minute)
	if err := r.clock.BlockUntil(guard(t), 1); err != nil {
		t.Errorf("no cycle ran when the clock advanced: %v", err)
	}
	if code, status, system := r.health(t); code != http.StatusOK || status != "healthy" || system != "healthy" {
		t.Errorf("ten intervals ahead: /health %d %s, system_status %s; want 200 healthy, healthy", code, status, system)
	}
	if n := len(r.src.Calls()); n != 2 {
		t.Errorf("%d cycles, want 2: one at the start, one on the advance", n)
	}
}

// The cycle runs when the clock reaches the next one's time, and not
// before.
func TestCycleRunsOnAdvance(t *testing.T) {
	r := startMonitor(t, 1)
	r.src.Set("checkout", availmon.Result{Status: availmon.StatusDown})
	for i := range 3 {
		r.clock.Advance(59 * time.Second)
		// The timer did not fire, so no cycle can have started.
		if n := r.clock.Timers(); n != 1 {
			t.Fatalf("cycle %d: the cycle timer fired a second early", i+2)
		}
		r.clock.Advance(time.Second)
		if err := r.clock.BlockUntil(guard(t), 1); err != nil {
			t.Fatalf("cycle %d did not run on the advance: %v", i+2, err)
		}
		if n := len(r.src.Calls()); n != i+2 {
			t.Errorf("after %d intervals, %d cycles; want %d", i+1, n, i+2)
		}
	}
	code, _, _ := r.health(t)
	if code != http.StatusOK {
		t.Errorf("/health %d, want 200", code)
	}
}

// The saver saves on the clock: with no cycle due for an hour, it saves
// by itself once two save intervals passed since the last state, and the
// cycle after a save interval saves too.
func TestSaverSavesOnAdvance(t *testing.T) {
	st := availmontest.NewStore(nil)
	r := startMonitor(t, 2, func(o *availmon.Options) {
		o.Store, o.Interval, o.SaveInterval = st, time.Hour, time.Minute
	})
	if n := st.Saves(); n != 0 {
		t.Fatalf("%d saves before a save interval passed", n)
	}
	r.clock.Advance(2 * time.Minute)
	if err := st.WaitSaves(guard(t), 1); err != nil {
		t.Fatalf("no save two save intervals after the last cycle: %v", err)
	}
	if n := len(r.src.Calls()); n != 1 {
		t.Errorf("%d cycles, want 1: the save is the saver's own", n)
	}
	r.clock.Advance(time.Hour)
	if err := st.WaitSaves(guard(t), 2); err != nil {
		t.Fatalf("no save after the next cycle: %v", err)
	}
}
