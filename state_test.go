package availmon

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"
	"unsafe"

	"github.com/availmon/availmon/internal/jsontime"
	"github.com/google/go-cmp/cmp"
)

// statusCounts is what /api/status and the Tel Aviv location say about the
// apps, as decoded JSON.
type statusCounts struct {
	Availability any // float64 or nil
	Up, Down     any
	Unavailable  any
	LocAvail     any
	LocUp        any
	LocDown      any
	LocUnavail   any
}

func readCounts(t *testing.T, tm *testMonitor) statusCounts {
	t.Helper()
	_, st := get(t, tm.h, "/api/status")
	_, loc := get(t, tm.h, "/api/locations/Tel%20Aviv")
	d := st["data"].(obj)
	s := loc["data"].(obj)["summary"].(obj)
	return statusCounts{
		Availability: d["overall_availability"], Up: d["applications_up"], Down: d["applications_down"],
		Unavailable: d["applications_unavailable"],
		LocAvail:    s["availability_percentage"], LocUp: s["up_count"], LocDown: s["down_count"],
		LocUnavail: s["unavailable_count"],
	}
}

// An app going up -> down -> unavailable -> up moves the counts and the
// percentages as the rulings say: unavailable is never down, percentages are
// over apps with a known state, rounded to two decimals, null when none is
// known; every change is one status_update event.
func TestStateTransitions(t *testing.T) {
	tm := newTestMonitor(t)
	up, down, unav := StatusUp, StatusDown, StatusUnavailable

	// Before the first cycle nothing is known.
	before := statusCounts{Availability: nil, Up: 0.0, Down: 0.0, Unavailable: 3.0,
		LocAvail: nil, LocUp: 0.0, LocDown: 0.0, LocUnavail: 2.0}
	if diff := cmp.Diff(before, readCounts(t, tm)); diff != "" {
		t.Errorf("before the first cycle (-want +got):\n%s", diff)
	}
	_, app := get(t, tm.h, "/api/apps/checkout")
	if d := app["data"].(obj); d["status"] != "unavailable" || d["last_check"] != nil || d["response_time"] != nil || len(d["history"].(arr)) != 0 {
		t.Errorf("checkout before the first cycle: %v; want unavailable, null last_check and response_time, empty history", d)
	}
	_, st := get(t, tm.h, "/api/status")
	if got := st["data"].(obj)["last_update"]; got != nil {
		t.Errorf("last_update before the first cycle = %v, want null", got)
	}

	type step struct {
		checkout, search, billing Status
		want                      statusCounts
		wantEvents                []string // app:previous->status
	}
	steps := []step{
		{up, up, up, statusCounts{100.0, 3.0, 0.0, 0.0, 100.0, 2.0, 0.0, 0.0},
			[]string{"checkout:->up", "search:->up", "billing:->up"}},
		{down, up, up, statusCounts{66.67, 2.0, 1.0, 0.0, 50.0, 1.0, 1.0, 0.0},
			[]string{"checkout:up->down"}},
		{unav, up, up, statusCounts{100.0, 2.0, 0.0, 1.0, 100.0, 1.0, 0.0, 1.0},
			[]string{"checkout:down->unavailable"}},
		{up, up, up, statusCounts{100.0, 3.0, 0.0, 0.0, 100.0, 2.0, 0.0, 0.0},
			[]string{"checkout:unavailable->up"}},
		{up, up, up, statusCounts{100.0, 3.0, 0.0, 0.0, 100.0, 2.0, 0.0, 0.0}, nil},
		{up, down, down, statusCounts{33.33, 1.0, 2.0, 0.0, 50.0, 1.0, 1.0, 0.0},
			[]string{"search:up->down", "billing:up->down"}},
		{unav, unav, down, statusCounts{0.0, 0.0, 1.0, 2.0, nil, 0.0, 0.0, 2.0},
			[]string{"checkout:up->unavailable", "search:down->unavailable"}},
		{unav, unav, unav, statusCounts{nil, 0.0, 0.0, 3.0, nil, 0.0, 0.0, 2.0},
			[]string{"billing:down->unavailable"}},
		{up, unav, unav, statusCounts{100.0, 1.0, 0.0, 2.0, 100.0, 1.0, 0.0, 1.0},
			[]string{"checkout:unavailable->up"}},
	}
	for i, s := range steps {
		tm.clock.Advance(time.Minute)
		tm.src.Set("checkout", s.checkout, 10*time.Millisecond)
		tm.src.Set("search", s.search, 10*time.Millisecond)
		tm.src.Set("billing", s.billing, 10*time.Millisecond)
		from := tm.events.cursor()
		tm.scrape(t)
		if diff := cmp.Diff(s.want, readCounts(t, tm)); diff != "" {
			t.Errorf("step %d (%s %s %s) counts (-want +got):\n%s", i, s.checkout, s.search, s.billing, diff)
		}
		evs, _, _, _ := tm.events.read(from, nil)
		var got []string
		for _, e := range evs {
			if e.Type != EventStatusUpdate {
				continue
			}
			got = append(got, fmt.Sprintf("%s:%s->%s", e.App, e.PreviousStatus, e.Status))
			if e.Location != tm.plan.apps[tm.plan.appIndex[e.App]].Location || !e.Time.Equal(tm.clock.Now()) {
				t.Errorf("step %d: event %+v has the wrong location or time", i, e)
			}
		}
		if diff := cmp.Diff(s.wantEvents, got); diff != "" {
			t.Errorf("step %d status_update events (-want +got):\n%s", i, diff)
		}
		// The app itself shows the state of its last check.
		_, app := get(t, tm.h, "/api/apps/checkout")
		if got := app["data"].(obj)["status"]; got != string(s.checkout) {
			t.Errorf("step %d: checkout status %v, want %s", i, got, s.checkout)
		}
	}
	// And the history of the app holds each step, oldest first.
	_, app = get(t, tm.h, "/api/apps/checkout")
	var hist []string
	for _, e := range app["data"].(obj)["history"].(arr) {
		hist = append(hist, e.(obj)["status"].(string))
	}
	want := []string{"up", "down", "unavailable", "up", "up", "up", "unavailable", "unavailable", "up"}
	if diff := cmp.Diff(want, hist); diff != "" {
		t.Errorf("checkout history (-want +got):\n%s", diff)
	}
}

// Percentages round to two decimals, half away from zero.
func TestPercentRounding(t *testing.T) {
	tests := []struct {
		part, whole int64
		want        any
	}{
		{2, 3, 66.67}, {1, 3, 33.33}, {1, 6, 16.67}, {5, 6, 83.33}, {1, 7, 14.29},
		{0, 5, 0.0}, {5, 5, 100.0}, {1, 8, 12.5}, {1, 200, 0.5}, {1, 30000, 0.0}, {29999, 30000, 100.0},
		{0, 0, nil},
	}
	for _, tt := range tests {
		var got any
		if p := percent(tt.part, tt.whole); p != nil {
			got = *p
		}
		if got != tt.want {
			t.Errorf("percent(%d, %d) = %v, want %v", tt.part, tt.whole, got, tt.want)
		}
	}
}

// twoBackends is a fixture with checkout and search on backend "a" and
// billing on backend "b".
func twoBackends(t *testing.T) (tm *testMonitor, a, b *fakeSource) {
	a, b = newFakeSource(), newFakeSource()
	tm = newTestMonitor(t, func(o *Options) {
		o.Interval = time.Hour
		o.Backends = []Backend{
			{Name: "a", URL: "http://127.0.0.1:9091", Source: a, BatchSize: 10},
			{Name: "b", URL: "http://127.0.0.1:9092", Source: b},
		}
		o.Apps[0].Backend, o.Apps[1].Backend, o.Apps[2].Backend = "a", "a", "b"
	})
	for _, s := range []*fakeSource{a, b} {
		s.Set("checkout", StatusUp, time.Millisecond)
		s.Set("search", StatusUp, time.Millisecond)
		s.Set("billing", StatusUp, time.Millisecond)
	}
	return tm, a, b
}

// A backend whose Source fails makes its apps unavailable and the system
// degraded (some backend failed) or disconnected (all did); /health stays
// 200 because the loop itself is alive. Recovery is reported too.
func TestBackendConnectivity(t *testing.T) {
	tm, a, b := twoBackends(t)
	tm.startRun(t)
	down := errors.New("connection refused")
	tests := []struct {
		name         string
		errA, errB   error
		system, conn string
		up, unavail  float64
	}{
		{"both answer", nil, nil, "healthy", "connected", 3, 0},
		{"a fails", down, nil, "degraded", "degraded", 1, 2},
		{"both fail", down, down, "degraded", "disconnected", 0, 3},
		{"b fails", nil, down, "degraded", "degraded", 2, 1},
		{"both recover", nil, nil, "healthy", "connected", 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.SetErr(tt.errA)
			b.SetErr(tt.errB)
			tm.clock.Advance(time.Second)
			tm.scrape(t)
			_, st := get(t, tm.h, "/api/status")
			d := st["data"].(obj)
			got := []any{d["system_status"], d["prometheus_connectivity"], d["applications_up"], d["applications_unavailable"]}
			if diff := cmp.Diff([]any{tt.system, tt.conn, tt.up, tt.unavail}, got); diff != "" {
				t.Errorf("system_status, connectivity, up, unavailable (-want +got):\n%s", diff)
			}
			if status, h := get(t, tm.h, "/health"); status != http.StatusOK || h["status"] != "healthy" {
				t.Errorf("/health = %d %v, want 200 healthy while Run runs", status, h["status"])
			}
			if tt.errA != nil {
				_, app := get(t, tm.h, "/api/apps/checkout")
				if d := app["data"].(obj); d["status"] != "unavailable" || d["error"] != "connection refused" {
					t.Errorf("checkout on a failing backend: status %v error %v", d["status"], d["error"])
				}
			}
		})
	}
	// Each connectivity change of a backend is one system event.
	evs, _, _, _ := tm.events.read(0, nil)
	var got []string
	for _, e := range evs {
		if e.Type == EventSystem && e.Backend != "" {
			got = append(got, e.Backend+":"+e.Name)
		}
	}
	wantSeq := []string{
		"a:backend_connected", "b:backend_connected",
		"a:backend_disconnected",
		"b:backend_disconnected",
		"a:backend_connected",
		"b:backend_connected",
	}
	if diff := cmp.Diff(wantSeq, got); diff != "" {
		t.Errorf("backend events (-want +got):\n%s", diff)
	}
}

// A backend that no app uses is never asked, so it cannot make the system
// look degraded.
func TestUnusedBackendIsNotDisconnected(t *testing.T) {
	src := newFakeSource()
	tm := newTestMonitor(t, func(o *Options) {
		o.Backends = append(o.Backends, Backend{Name: "spare", URL: "http://127.0.0.1:9093", Source: src})
		for i := range o.Apps {
			o.Apps[i].Backend = "main"
		}
	})
	tm.src.Set("checkout", StatusUp, time.Millisecond)
	tm.scrape(t)
	_, st := get(t, tm.h, "/api/status")
	if got := st["data"].(obj)["prometheus_connectivity"]; got != "connected" {
		t.Errorf("prometheus_connectivity = %v with every used backend answering, want connected", got)
	}
	if src.Calls() != 0 {
		t.Errorf("the unused backend was called %d times", src.Calls())
	}
}

// A Source that misbehaves makes the apps it answers for unavailable; the
// cycle still completes and other backends' apps are unaffected.
func TestSourceMisbehaviour(t *testing.T) {
	tests := []struct {
		name     string
		check    func(ctx context.Context, apps []App) ([]Result, error)
		wantErr  string
		wantConn string // the backend answered unless it failed as a whole
	}{
		{"panic", func(ctx context.Context, apps []App) ([]Result, error) { panic("boom") }, "source panicked: boom", connDegraded},
		{"too few results", func(ctx context.Context, apps []App) ([]Result, error) {
			return []Result{{Status: StatusUp}}, nil
		}, "source returned a result count (1) unlike the app count (2)", connDegraded},
		{"too many results", func(ctx context.Context, apps []App) ([]Result, error) {
			return make([]Result, 3), nil
		}, "source returned a result count (3) unlike the app count (2)", connDegraded},
		{"nil results", func(ctx context.Context, apps []App) ([]Result, error) { return nil, nil },
			"source returned a result count (0) unlike the app count (2)", connDegraded},
		{"invalid status", func(ctx context.Context, apps []App) ([]Result, error) {
			return []Result{{Status: "UP"}, {Status: ""}}, nil
		}, `source returned invalid status "UP"`, connConnected},
		{"error and results", func(ctx context.Context, apps []App) ([]Result, error) {
			return []Result{{Status: StatusUp}, {Status: StatusUp}}, errors.New("partial failure")
		}, "partial failure", connDegraded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tm, a, _ := twoBackends(t)
			a.check = tt.check
			tm.scrape(t)
			s := tm.snap.Load()
			if s.seq != 1 {
				t.Fatalf("snapshot seq %d after one cycle, want 1", s.seq)
			}
			_, app := get(t, tm.h, "/api/apps/checkout")
			d := app["data"].(obj)
			if d["status"] != "unavailable" || d["last_check"] != ts(t0) {
				t.Errorf("checkout: status %v last_check %v, want unavailable at %s", d["status"], d["last_check"], ts(t0))
			}
			if msg, _ := d["error"].(string); len(msg) < len(tt.wantErr) || msg[:len(tt.wantErr)] != tt.wantErr {
				t.Errorf("checkout error %q, want it to start with %q", msg, tt.wantErr)
			}
			_, billing := get(t, tm.h, "/api/apps/billing")
			if got := billing["data"].(obj)["status"]; got != "up" {
				t.Errorf("billing on the other backend: %v, want up", got)
			}
			if got := s.connectivity; got != tt.wantConn {
				t.Errorf("connectivity %s, want %s", got, tt.wantConn)
			}
		})
	}
}

// A negative response time from a source is shown as zero.
func TestNegativeResponseTime(t *testing.T) {
	tm := newTestMonitor(t)
	tm.src.Set("checkout", StatusUp, -time.Second)
	tm.scrape(t)
	_, app := get(t, tm.h, "/api/apps/checkout")
	if got := app["data"].(obj)["response_time"]; got != 0.0 {
		t.Errorf("response_time %v, want 0", got)
	}
}

// historyPoint is one data point as decoded JSON.
func historyPoints(t *testing.T, tm *testMonitor, period, res string) (points arr, meta obj) {
	t.Helper()
	status, body := get(t, tm.h, "/api/status/history?period="+period+"&resolution="+res)
	if status != http.StatusOK {
		t.Fatalf("history %s/%s: status %d", period, res, status)
	}
	d := body["data"].(obj)
	if d["period"] != period || d["resolution"] != res {
		t.Errorf("history echoes period %v resolution %v, want %s %s", d["period"], d["resolution"], period, res)
	}
	return d["data_points"].(arr), body["meta"].(obj)
}

// Every period/resolution pair answers period/resolution points, oldest
// first, each starting on a resolution boundary in UTC, the last one
// holding now.
func TestHistoryShapeAllPairs(t *testing.T) {
	tm := newTestMonitor(t)
	now := time.Date(2026, 11, 22, 12, 7, 31, 500_000_000, time.UTC)
	tm.clock.Set(now)
	tm.src.Set("checkout", StatusUp, time.Millisecond)
	tm.scrape(t)
	periods := map[string]time.Duration{"1h": time.Hour, "24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour, "30d": 30 * 24 * time.Hour}
	resolutions := map[string]time.Duration{"1m": time.Minute, "5m": 5 * time.Minute, "1h": time.Hour}
	for _, p := range []string{"1h", "24h", "7d", "30d"} {
		for _, r := range []string{"1m", "5m", "1h"} {
			t.Run(p+"/"+r, func(t *testing.T) {
				points, meta := historyPoints(t, tm, p, r)
				wantN := int(periods[p] / resolutions[r])
				if len(points) != wantN || meta["count"] != float64(wantN) {
					t.Fatalf("%d points, meta.count %v; want %d", len(points), meta["count"], wantN)
				}
				last := now.Truncate(resolutions[r])
				var known int
				for i, pt := range points {
					want := last.Add(-time.Duration(wantN-1-i) * resolutions[r])
					if got := pt.(obj)["timestamp"]; got != ts(want) {
						t.Fatalf("point %d timestamp %v, want %s", i, got, ts(want))
					}
					if pt.(obj)["overall_availability"] != nil {
						known++
					}
				}
				if known != 1 || points[wantN-1].(obj)["overall_availability"] != 100.0 {
					t.Errorf("want exactly the last point known (100%%), got %d known, last %v", known, points[wantN-1])
				}
			})
		}
	}
	for _, q := range []string{"", "?period=24h", "?resolution=5m"} {
		status, body := get(t, tm.h, "/api/status/history"+q)
		d := body["data"].(obj)
		if status != 200 || d["period"] != "24h" || d["resolution"] != "5m" || len(d["data_points"].(arr)) != 288 || body["meta"].(obj)["count"] != 288.0 {
			t.Errorf("history%s: status %d period %v resolution %v count %v; want the 24h/5m default with 288 points", q, status, d["period"], d["resolution"], body["meta"].(obj)["count"])
		}
	}
}

// Moving the clock across a bucket edge starts a new bucket; the old one
// keeps its value. Within a bucket, availability is over every app check
// and the counts are those of its last cycle.
func TestHistoryBucketEdges(t *testing.T) {
	tm := newTestMonitor(t)
	for _, a := range []string{"checkout", "search", "billing"} {
		tm.src.Set(a, StatusUp, time.Millisecond)
	}
	at := func(h, m, s int) time.Time { return time.Date(2026, 11, 22, h, m, s, 0, time.UTC) }
	point := func(start time.Time, avail any, up, down, unav float64) obj {
		return obj{"timestamp": ts(start), "overall_availability": avail, "apps_up": up, "apps_down": down, "apps_unavailable": unav}
	}
	empty := func(start time.Time) obj { return point(start, nil, 0, 0, 0) }

	tm.clock.Set(at(12, 4, 0))
	tm.scrape(t) // 3 up
	tm.clock.Set(at(12, 4, 59))
	tm.src.Set("billing", StatusDown, time.Millisecond)
	tm.scrape(t) // 2 up, 1 down: the 12:00 bucket is 5 of 6 up

	points, _ := historyPoints(t, tm, "1h", "5m")
	if diff := cmp.Diff(arr{empty(at(11, 55, 0)), point(at(12, 0, 0), 83.33, 2, 1, 0)}, points[10:]); diff != "" {
		t.Errorf("at 12:04:59, last two 5m buckets (-want +got):\n%s", diff)
	}

	tm.clock.Set(at(12, 5, 0))
	tm.src.Set("search", StatusUnavailable, 0)
	tm.scrape(t) // checkout up, search unavailable, billing down: 50%
	points, _ = historyPoints(t, tm, "1h", "5m")
	if diff := cmp.Diff(arr{point(at(12, 0, 0), 83.33, 2, 1, 0), point(at(12, 5, 0), 50.0, 1, 1, 1)}, points[10:]); diff != "" {
		t.Errorf("at 12:05:00, last two 5m buckets (-want +got):\n%s", diff)
	}
	if got := points[0].(obj)["timestamp"]; got != ts(at(11, 10, 0)) {
		t.Errorf("oldest 5m bucket %v, want 11:10", got)
	}
	minutes, _ := historyPoints(t, tm, "1h", "1m")
	if diff := cmp.Diff(arr{empty(at(12, 3, 0)), point(at(12, 4, 0), 83.33, 2, 1, 0), point(at(12, 5, 0), 50.0, 1, 1, 1)}, minutes[57:]); diff != "" {
		t.Errorf("at 12:05:00, last three 1m buckets (-want +got):\n%s", diff)
	}
	hours, _ := historyPoints(t, tm, "24h", "1h")
	// 12:00 hour: 5 of 6 up, then 1 of 2 known: 6 of 8 = 75%.
	if diff := cmp.Diff(arr{empty(at(11, 0, 0)), point(at(12, 0, 0), 75.0, 1, 1, 1)}, hours[22:]); diff != "" {
		t.Errorf("last two 1h buckets (-want +got):\n%s", diff)
	}

	// Later, everything unavailable: a bucket with only unavailable checks
	// has null availability but real counts; earlier buckets are unchanged.
	tm.clock.Set(at(13, 30, 0))
	tm.src.SetErr(errors.New("down"))
	tm.scrape(t)
	points, _ = historyPoints(t, tm, "24h", "5m")
	if diff := cmp.Diff(point(at(13, 30, 0), nil, 0, 0, 3), points[287]); diff != "" {
		t.Errorf("all-unavailable bucket (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(arr{point(at(12, 0, 0), 83.33, 2, 1, 0), point(at(12, 5, 0), 50.0, 1, 1, 1)}, points[287-18:287-16]); diff != "" {
		t.Errorf("older 5m buckets after the clock moved on (-want +got):\n%s", diff)
	}
}

// The 30-day history keeps what is within 30 days and forgets what is
// older, even where the ring reuses a slot.
func TestHistoryThirtyDays(t *testing.T) {
	tm := newTestMonitor(t)
	tm.src.Set("checkout", StatusUp, time.Millisecond)
	tm.src.Set("search", StatusDown, time.Millisecond)

	// 31 days ago lands in the ring slot that 23 hours ago uses now.
	tm.clock.Set(t0.Add(-31 * 24 * time.Hour))
	tm.scrape(t)
	tm.clock.Set(t0.Add(-29*24*time.Hour - 30*time.Minute))
	tm.scrape(t)
	tm.clock.Set(t0)
	tm.scrape(t)

	points, meta := historyPoints(t, tm, "30d", "1h")
	if len(points) != 720 || meta["count"] != 720.0 {
		t.Fatalf("30d/1h: %d points, want 720", len(points))
	}
	if got := points[0].(obj)["timestamp"]; got != ts(t0.Add(-719*time.Hour)) {
		t.Errorf("oldest 30d/1h bucket %v, want %s", got, ts(t0.Add(-719*time.Hour)))
	}
	var known []string
	for _, p := range points {
		if p.(obj)["overall_availability"] != nil {
			known = append(known, p.(obj)["timestamp"].(string))
		}
	}
	want := []string{ts(t0.Add(-29*24*time.Hour - time.Hour)), ts(t0)}
	if diff := cmp.Diff(want, known); diff != "" {
		t.Errorf("known 30d/1h buckets (-want +got):\n%s", diff)
	}
	day, _ := historyPoints(t, tm, "24h", "1h")
	for i, p := range day[:23] {
		if p.(obj)["overall_availability"] != nil {
			t.Errorf("24h/1h bucket %d (%v) shows a cycle from 31 days ago", i, p.(obj)["timestamp"])
		}
	}
	week, _ := historyPoints(t, tm, "7d", "1h")
	if len(week) != 168 {
		t.Errorf("7d/1h: %d points, want 168", len(week))
	}
}

// /api/apps/{name} history holds at most HistorySize checks, oldest first.
func TestAppHistoryBounded(t *testing.T) {
	tm := newTestMonitor(t, func(o *Options) { o.HistorySize = 5 })
	var want arr
	for i := range 8 {
		tm.clock.Set(t0.Add(time.Duration(i) * time.Minute))
		st := StatusUp
		if i%3 == 0 {
			st = StatusDown
		}
		rt := time.Duration(i+1) * 100 * time.Millisecond
		tm.src.Set("checkout", st, rt)
		tm.scrape(t)
		if i >= 3 {
			want = append(want, obj{"timestamp": ts(tm.clock.Now()), "status": string(st), "response_time": rt.Seconds()})
		}
	}
	_, app := get(t, tm.h, "/api/apps/checkout")
	if diff := cmp.Diff(want, app["data"].(obj)["history"]); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	// An unavailable check carries its error in the history.
	tm.clock.Advance(time.Minute)
	tm.src.SetErr(errors.New("timeout talking to backend"))
	tm.scrape(t)
	_, app = get(t, tm.h, "/api/apps/checkout")
	h := app["data"].(obj)["history"].(arr)
	wantLast := obj{"timestamp": ts(tm.clock.Now()), "status": "unavailable", "response_time": 0.0, "error": "timeout talking to backend"}
	if len(h) != 5 {
		t.Errorf("history has %d entries, want 5", len(h))
	}
	if diff := cmp.Diff(wantLast, h[len(h)-1]); diff != "" {
		t.Errorf("last history entry (-want +got):\n%s", diff)
	}
}

// The metrics summary is over the checks of the last 24 hours: checks made,
// unavailable ones as errors, mean response time and uptime over checks
// that got an answer, per app and per location too. Older checks drop out.
func TestMetricsSummaryWindow(t *testing.T) {
	tm := newTestMonitor(t)
	set := func(c, s, b Status) {
		tm.src.Set("checkout", c, 100*time.Millisecond)
		tm.src.Set("search", s, 300*time.Millisecond)
		tm.src.Set("billing", b, 200*time.Millisecond)
	}
	// 25 hours ago: all down. This must drop out at t0.
	tm.clock.Set(t0.Add(-25 * time.Hour))
	set(StatusDown, StatusDown, StatusDown)
	tm.scrape(t)
	// 23 hours ago: all up.
	tm.clock.Set(t0.Add(-23 * time.Hour))
	set(StatusUp, StatusUp, StatusUp)
	tm.scrape(t)
	// 2 hours ago the 25h-old cycle is still in the window.
	tm.clock.Set(t0.Add(-2 * time.Hour))
	set(StatusUp, StatusDown, StatusUnavailable)
	tm.scrape(t)
	_, body := get(t, tm.h, "/api/metrics/summary")
	if got := body["data"].(obj)["total_requests"]; got != 9.0 {
		t.Errorf("22 hours after the first cycle total_requests = %v, want 9", got)
	}
	// Now: checkout up, search up, billing unavailable.
	tm.clock.Set(t0)
	set(StatusUp, StatusUp, StatusUnavailable)
	tm.scrape(t)

	// Checks in the window: 23h ago (3 up), 2h ago (up, down, unavailable),
	// now (up, up, unavailable): 9 checks, 2 errors, 6 up of 7 answered.
	// Response times of the 7 answered: checkout 3x0.1, search 3x0.3,
	// billing 1x0.2 -> 1.4/7 = 0.2.
	want := obj{
		"total_requests": 9.0, "total_errors": 2.0, "average_response_time": 0.2, "uptime_percentage": 85.71,
		"apps_summary": arr{
			obj{"name": "checkout", "status": "up", "uptime_24h": 100.0, "avg_response_time": 0.1},
			obj{"name": "search", "status": "up", "uptime_24h": 66.67, "avg_response_time": 0.3},
			obj{"name": "billing", "status": "unavailable", "uptime_24h": 100.0, "avg_response_time": 0.2},
		},
		"locations_summary": arr{
			obj{"name": "Tel Aviv", "apps_up": 2.0, "apps_down": 0.0, "apps_unavailable": 0.0, "availability": 83.33},
			obj{"name": "Frankfurt", "apps_up": 0.0, "apps_down": 0.0, "apps_unavailable": 1.0, "availability": 100.0},
		},
	}
	_, body = get(t, tm.h, "/api/metrics/summary")
	if diff := cmp.Diff(want, body["data"]); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}

	// A day later with only unavailable checks, everything known drops out:
	// figures over no answered check are null.
	tm.clock.Set(t0.Add(24 * time.Hour))
	tm.src.SetErr(errors.New("down"))
	tm.scrape(t)
	_, body = get(t, tm.h, "/api/metrics/summary")
	d := body["data"].(obj)
	got := []any{d["total_requests"], d["total_errors"], d["average_response_time"], d["uptime_percentage"],
		d["apps_summary"].(arr)[0].(obj)["uptime_24h"], d["locations_summary"].(arr)[0].(obj)["availability"]}
	if diff := cmp.Diff([]any{3.0, 3.0, nil, nil, nil, nil}, got); diff != "" {
		t.Errorf("summary after a day of outage (-want +got):\n%s", diff)
	}
}

// What is kept per app, and per minute of the history, stays packed.
func TestPackedSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		size, max uintptr
	}{
		{"appState", unsafe.Sizeof(appState{}), 48},
		{"appView", unsafe.Sizeof(appView{}), 64},
		{"minuteBucket", unsafe.Sizeof(minuteBucket{}), 28},
	} {
		if c.size > c.max {
			t.Errorf("%s takes %d bytes, want at most %d", c.name, c.size, c.max)
		}
	}
}

// An app's last check comes back as the clock gave it: the same instant,
// shown the same by the API and in the same location when that is UTC or
// time.Local (a restored state's), the zero Time as the zero Time.
func TestAppStateLastCheck(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		at      time.Time
		wantLoc *time.Location
	}{
		{"UTC", time.Date(2026, 11, 25, 14, 0, 0, 123456789, time.UTC), time.UTC},
		{"Local", time.Date(2026, 11, 25, 14, 0, 0, 1, time.Local), time.Local},
		{"the system clock's, with a monotonic reading", time.Now(), time.Local},
		{"another zone: the instant, in Local", time.Date(2026, 11, 25, 14, 0, 0, 0, paris), time.Local},
		{"before 1970", time.Date(1969, 12, 31, 23, 59, 59, 999, time.UTC), time.UTC},
		{"the zero Time", time.Time{}, time.UTC},
	} {
		t.Run(c.name, func(t *testing.T) {
			var a appState
			a.setChecked(c.at)
			got := a.lastCheckTime()
			if !got.Equal(c.at) || got.Location() != c.wantLoc || got.IsZero() != c.at.IsZero() {
				t.Errorf("%v came back as %v", c.at, got)
			}
			want, _ := jsontime.Time(c.at).MarshalJSON()
			shown, _ := jsontime.Time(got).MarshalJSON()
			if string(shown) != string(want) {
				t.Errorf("shown as %s, want %s", shown, want)
			}
			if !a.checked() || a.lastCheck != c.at.UnixNano() {
				t.Errorf("checked %v, lastCheck %d; want true, %d (what the history and the state file keep)", a.checked(), a.lastCheck, c.at.UnixNano())
			}
		})
	}
	if u := unchecked(); !u.lastCheckTime().IsZero() || u.status() != StatusUnavailable {
		t.Errorf("an unchecked app: last check %v, status %q", u.lastCheckTime(), u.status())
	}
}

// The statuses round-trip through their codes; a status outside the three
// is kept as unavailable, as the history and the state file keep it.
func TestStatusCodes(t *testing.T) {
	for _, s := range []Status{"", StatusUp, StatusDown, StatusUnavailable} {
		if got := codeOf(s).status(); got != s {
			t.Errorf("%q came back as %q", s, got)
		}
	}
	if got := codeOf("odd").status(); got != StatusUnavailable {
		t.Errorf(`"odd" kept as %q, want unavailable`, got)
	}
	var a appState
	a.setStatus(StatusDown)
	a.setMaint(true)
	a.setDamper(damper{run: 2, cand: codeUp})
	a.setMaint(false)
	if a.status() != StatusDown || a.maint() || a.checked() || a.damper() != (damper{run: 2, cand: codeUp}) {
		t.Errorf("fields mixed up: %+v", a)
	}
}

// A clock outside the minutes a bucket holds (years -2113 to 6053) leaves
// the minute history alone, rather than writing a wrapped minute.
func TestMinuteHistoryOutOfRange(t *testing.T) {
	h := newMinuteHistory()
	far := time.Unix((math.MaxInt32+1)*60, 0)
	h.add(far, 3, 1, 0)
	h.add(time.Unix((math.MinInt32-1)*60, 0), 3, 1, 0)
	for i := range h.buckets {
		if h.buckets[i].seen {
			t.Fatalf("bucket %d written: %+v", i, h.buckets[i])
		}
	}
	if p := h.points(far, time.Hour, time.Hour); p[0].availability != nil {
		t.Errorf("a point at %v: %+v, want no data", far, p[0])
	}
	last := time.Unix(math.MaxInt32*60, 0)
	h.add(last, 3, 1, 0)
	if p := h.points(last, time.Hour, time.Hour); p[0].availability == nil || *p[0].availability != 75 {
		t.Errorf("the last minute a bucket holds: %+v, want 75%%", p[0])
	}
}

// A minute's check counts saturate rather than wrap.
func TestMinuteBucketSaturates(t *testing.T) {
	h := newMinuteHistory()
	h.add(t0, math.MaxInt32, 0, 0)
	h.add(t0, math.MaxInt32, 0, 0)
	h.add(t0, math.MaxInt32, 1, 0)
	if b := h.buckets[mod(t0.Unix()/60, historyMinutes)]; b.up != math.MaxUint32 || b.down != 1 {
		t.Errorf("up %d, down %d; want %d, 1", b.up, b.down, uint32(math.MaxUint32))
	}
}
