package availmon

import (
	"net/http"
	"testing"
	"time"
)

// A clock that runs ten intervals ahead keeps /health healthy. A clock that
// makes timers drives the cycle, so the cycle due runs and the deadline
// moves with it; a clock that has only Now leaves the cycles on Go's
// timers, and the deadline is measured there too.
func TestHealthFollowsTheClock(t *testing.T) {
	for _, tt := range []struct {
		name   string
		timers bool
	}{{"timer clock", true}, {"plain clock", false}} {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeClock(t0)
			var clock Clock = fake
			if !tt.timers {
				clock = struct{ Clock }{fake} // Now only
			}
			tm := newTestMonitor(t, func(o *Options) { o.Clock, o.Interval = clock, time.Minute })
			tm.startRun(t)
			if tt.timers {
				if err := fake.BlockUntil(waitCtx(t), 1); err != nil {
					t.Errorf("the cycle timer is not on the clock: %v", err)
				}
			}
			fake.Advance(10 * time.Minute)
			if tt.timers {
				if err := fake.BlockUntil(waitCtx(t), 1); err != nil {
					t.Errorf("no cycle ran on the advance: %v", err)
				}
			}
			code, body := get(t, tm.h, "/health")
			_, st := get(t, tm.h, "/api/status")
			if code != http.StatusOK || body["status"] != "healthy" || st["data"].(obj)["system_status"] != "healthy" {
				t.Errorf("ten intervals ahead: /health %d %v, system_status %v; want 200 healthy, healthy",
					code, body["status"], st["data"].(obj)["system_status"])
			}
		})
	}
}

// The backfill's wait between two rounds of retries wakes when the clock
// reaches its end, with no cycle in between: it is a timer of the clock.
func TestBackfillRetryWakesOnAdvance(t *testing.T) {
	tm := newTestMonitor(t)
	woke := make(chan bool, 1)
	go func() { woke <- tm.sleepUntil(t.Context(), t0.Add(BackfillRetryMin)) }()
	if err := tm.clock.BlockUntil(waitCtx(t), 1); err != nil {
		t.Fatalf("the wait set no timer on the clock: %v", err)
	}
	tm.clock.Advance(BackfillRetryMin)
	select {
	case ok := <-woke:
		if !ok {
			t.Error("sleepUntil returned false, want true: its context did not end")
		}
	case <-waitCtx(t).Done():
		t.Fatal("the wait did not wake when the clock reached its end")
	}
}
