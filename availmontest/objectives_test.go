package availmontest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
	"github.com/availmon/availmon/objective"
)

// A calendar-month objective in Europe/Berlin, driven through Run by the
// fake clock across the night Berlin leaves summer time (25 October 2026,
// 03:00 CEST = 01:00 UTC, back to 02:00 CET): checkout is checked every 30
// minutes from 24 October 00:00 UTC to 27 October 00:00 UTC, and down for
// the hour [00:30, 01:30) UTC that straddles the change. The figures are
// worked out here from that script and the month's bounds alone.
func TestObjectiveBerlinMonthAcrossDST(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	utc := func(d, h, m int) time.Time { return time.Date(2026, 10, d, h, m, 0, 0, time.UTC) }
	start, now := utc(24, 0, 0), utc(27, 0, 0)
	const step = 30 * time.Minute
	cycles := int(now.Sub(start)/step) + 1
	var script []availmon.Result
	for k := range cycles {
		r := availmon.Result{Status: availmon.StatusUp}
		if at := start.Add(time.Duration(k) * step); !at.Before(utc(25, 0, 30)) && at.Before(utc(25, 1, 30)) {
			r.Status = availmon.StatusDown
		}
		script = append(script, r)
	}
	w, err := objective.ParseWindow("month")
	if err != nil {
		t.Fatal(err)
	}
	w.Location = berlin
	clock, src := availmontest.NewClock(start), availmontest.NewSource()
	src.Set("checkout", script...)
	m, err := availmon.New(availmon.Options{
		Locations:  []availmon.Location{{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818}},
		Apps:       []availmon.App{{Name: "checkout", Location: "Tel Aviv"}},
		Source:     src,
		Clock:      clock,
		Interval:   step,
		Objectives: []objective.Objective{{Name: "berlin", Target: 0.99, Window: w, Subject: objective.Subject{App: "checkout"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	for k := range cycles {
		if k > 0 {
			clock.Advance(step)
		}
		if err := clock.BlockUntil(guard(t), 1); err != nil {
			t.Fatalf("cycle %d did not run: %v", k+1, err)
		}
	}
	if n := len(src.Calls()); n != cycles {
		t.Fatalf("%d cycles, want %d", n, cycles)
	}

	// Berlin's October: 1 October 00:00 CEST (30 September 22:00 UTC) to
	// 1 November 00:00 CET (31 October 23:00 UTC), 745 hours, not 744.
	monthStart, monthEnd := time.Date(2026, 9, 30, 22, 0, 0, 0, time.UTC), utc(31, 23, 0)
	if got := monthEnd.Sub(monthStart); got != 745*time.Hour {
		t.Fatalf("Berlin's October lasts %v, want 745h", got)
	}
	hours := func(d time.Duration) float64 { return d.Hours() }
	counted := hours(now.Sub(start))         // 72h observed, 1h of it down
	rest := hours(monthEnd.Sub(now))         // 119h to come, counted as if observed
	elapsed := hours(now.Sub(monthStart))    // 626h of the month so far
	budget := 0.01 * (counted + rest) * 3600 // seconds
	remaining := budget - 3600
	a7 := (counted - 1) / counted // the last 7 days hold all the counted time
	burn3d := 1 / counted / 0.01
	want := map[string]any{
		"name": "berlin", "target": 0.99, "window": "month", "kind": "availability", "latency_threshold_seconds": nil,
		"subject": map[string]any{"kind": "app", "name": "checkout"}, "labels": map[string]any{},
		"attainment": (counted - 1) / counted, "coverage": counted / elapsed,
		"error_budget":         map[string]any{"total_seconds": budget, "remaining_seconds": remaining, "remaining_ratio": remaining / budget},
		"burn_rates":           map[string]any{"5m": 0.0, "30m": 0.0, "1h": 0.0, "2h": 0.0, "6h": 0.0, "1d": 0.0, "3d": burn3d},
		"projected_attainment": (counted - 1 + a7*rest) / (counted + rest),
		"state":                "ok",
	}
	var detail struct {
		Data map[string]any `json:"data"`
	}
	getJSON(t, m.Handler(), "/api/objectives/berlin", &detail)
	series := detail.Data["budget_series"].([]any)
	delete(detail.Data, "budget_series")
	if d := cmp.Diff(want, detail.Data, cmpopts.EquateApprox(1e-12, 1e-6)); d != "" {
		t.Errorf("/api/objectives/berlin (-want +got):\n%s", d)
	}

	// A point at every Berlin midnight from 2 October (22:00 UTC the day
	// before; 23:00 UTC from the 26th) and one at now. Every point's
	// budget is 1% of the time from the first check (or from the point, if
	// earlier) to the month's end.
	if len(series) != 27 {
		t.Fatalf("budget_series has %d points, want 26 midnights and now", len(series))
	}
	point := func(at time.Time, ratio, attainment any) map[string]any {
		return map[string]any{"time": at.UTC().Format("2006-01-02T15:04:05.000Z"), "remaining_ratio": ratio, "attainment": attainment}
	}
	wantTail := []any{
		point(time.Date(2026, 10, 24, 0, 0, 0, 0, berlin), 1.0, nil), // 23 October 22:00 UTC
		point(time.Date(2026, 10, 25, 0, 0, 0, 0, berlin), 1.0, 1.0), // 24 October 22:00 UTC
		point(time.Date(2026, 10, 26, 0, 0, 0, 0, berlin), remaining/budget, // 25 October 23:00 UTC, 25 hours on
			(47.0-1)/47),
		point(time.Date(2026, 10, 27, 0, 0, 0, 0, berlin), remaining/budget, (71.0-1)/71), // 26 October 23:00 UTC
		point(now, remaining/budget, (counted-1)/counted),
	}
	if d := cmp.Diff(wantTail, series[len(series)-5:], cmpopts.EquateApprox(1e-12, 1e-9)); d != "" {
		t.Errorf("budget_series' last points (-want +got):\n%s", d)
	}
}

// getJSON decodes the body of a GET answered 200 into v.
func getJSON(t *testing.T, h http.Handler, path string, v any) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", path, rec.Code, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		t.Fatal(err)
	}
}
