package availmon

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The cycle timeout is never longer than the interval: an interval set
// through the API below the configured timeout lowers the timeout, which
// /api/config reports and the next cycle's deadline follows.
func TestIntervalBelowTimeoutLowersIt(t *testing.T) {
	tm := newTestMonitor(t, openWrites, func(o *Options) {
		o.Interval = 30 * time.Second
		o.Timeout = 5 * time.Second
	})
	rec := do(t, tm.h, http.MethodPost, "/api/scrape-interval", `{"interval":"1s"}`, nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("POST 1s: %d %s", rec.Code, rec.Body)
	}
	_, cfg := get(t, tm.h, "/api/config")
	if got := cfg["data"].(obj)["scrape_timeout"]; got != "1s" {
		t.Errorf("scrape_timeout %v with a 1s interval, want 1s", got)
	}
	var left time.Duration
	tm.src.check = func(ctx context.Context, apps []App) ([]Result, error) {
		dl, ok := ctx.Deadline()
		if !ok {
			t.Error("the cycle has no deadline")
		}
		left = time.Until(dl)
		return make([]Result, len(apps)), nil
	}
	tm.scrape(t)
	if left > time.Second {
		t.Errorf("the cycle's deadline is %s away with a 1s interval, want at most 1s", left)
	}
	// Back above the configured timeout, the configured one applies again.
	tm.SetInterval(time.Minute)
	_, cfg = get(t, tm.h, "/api/config")
	if got := cfg["data"].(obj)["scrape_timeout"]; got != "5s" {
		t.Errorf("scrape_timeout %v with a 1m interval, want 5s", got)
	}
}

// New applies the same rule as the configuration file: a timeout longer
// than the interval is refused.
func TestNewRefusesTimeoutAboveInterval(t *testing.T) {
	_, err := New(Options{Interval: 2 * time.Second, Timeout: 5 * time.Second,
		Locations: []Location{telAviv}})
	if err == nil || !strings.Contains(err.Error(), "timeout 5s is longer than the interval 2s") {
		t.Errorf("New: %v, want the timeout refused", err)
	}
}
