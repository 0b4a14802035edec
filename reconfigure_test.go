package availmon

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon/internal/history"
)

// reconfigured returns the options of tm's fixture after the standard
// change: search removed, payments added (Frankfurt), billing's metric
// changed, checkout untouched.
func reconfigured(tm *testMonitor) Options {
	return Options{
		Locations: []Location{telAviv, frankfurt},
		Apps: []App{
			{Name: "checkout", Location: "Tel Aviv", Metric: `up{job="checkout"}`},
			{Name: "billing", Location: "Frankfurt", Metric: `up{job="billing-v2"}`},
			{Name: "payments", Location: "Frankfurt", Metric: `up{job="payments"}`},
		},
		Backends: []Backend{{Name: "main", URL: testPromURL, Source: tm.src, BatchSize: 10}},
	}
}

func appNames(t *testing.T, h http.Handler) []string {
	t.Helper()
	code, body := get(t, h, "/api/apps")
	if code != http.StatusOK {
		t.Fatalf("GET /api/apps: %d", code)
	}
	var names []string
	for _, a := range body["data"].([]any) {
		names = append(names, a.(map[string]any)["name"].(string))
	}
	return names
}

func metricsText(t *testing.T, h http.Handler) string {
	t.Helper()
	rec := do(t, h, http.MethodGet, "/metrics", "", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d", rec.Code)
	}
	return rec.Body.String()
}

// Apps that stay keep state, history and counters; removed apps leave the
// API, /metrics and the summaries; added apps are unavailable until checked.
func TestReconfigureCarriesState(t *testing.T) {
	tm := newTestMonitor(t)
	for _, a := range []string{"checkout", "search", "billing"} {
		tm.src.Set(a, StatusUp, 10*time.Millisecond)
	}
	tm.scrape(t)
	tm.src.Set("search", StatusDown, 0)
	tm.clock.Advance(time.Second)
	tm.scrape(t)
	if !strings.Contains(metricsText(t, tm.h), `availmon_up{app="search",location="Tel Aviv"} 0`) {
		t.Fatalf("before: search is not on /metrics")
	}
	from := tm.events.cursor()

	ch, err := tm.Reconfigure(reconfigured(tm))
	if err != nil {
		t.Fatal(err)
	}
	want := ConfigChange{AppsAdded: []string{"payments"}, AppsRemoved: []string{"search"},
		AppsChanged: []string{"billing"}, Apps: 3}
	if d := cmp.Diff(want, ch); d != "" {
		t.Errorf("change (-want +got):\n%s", d)
	}
	evs, _, _, _ := tm.events.read(from, nil)
	if len(evs) != 1 || evs[0].Type != EventConfigUpdate || evs[0].Change == nil ||
		!cmp.Equal(*evs[0].Change, want) {
		t.Errorf("events after Reconfigure: %+v, want one config_update with the change", evs)
	}

	if d := cmp.Diff([]string{"checkout", "billing", "payments"}, appNames(t, tm.h)); d != "" {
		t.Errorf("apps (-want +got):\n%s", d)
	}
	if code, _ := get(t, tm.h, "/api/apps/search"); code != http.StatusNotFound {
		t.Errorf("removed app: %d, want 404", code)
	}
	_, body := get(t, tm.h, "/api/apps/checkout")
	d := body["data"].(map[string]any)
	if h := d["history"].([]any); len(h) != 2 || d["status"] != "up" {
		t.Errorf("checkout after reload: status %v, %d history entries, want up and 2", d["status"], len(h))
	}
	_, body = get(t, tm.h, "/api/apps/billing")
	if d := body["data"].(map[string]any); d["metric"] != `up{job="billing-v2"}` || len(d["history"].([]any)) != 2 {
		t.Errorf("changed app: %v, want the new metric and its 2 checks", d)
	}
	_, body = get(t, tm.h, "/api/apps/payments")
	if d := body["data"].(map[string]any); d["status"] != "unavailable" || d["last_check"] != nil || len(d["history"].([]any)) != 0 {
		t.Errorf("added app: %v, want unavailable, never checked", d)
	}
	m := metricsText(t, tm.h)
	if strings.Contains(m, `app="search"`) {
		t.Errorf("/metrics still has the removed app:\n%s", m)
	}
	for _, s := range []string{`availmon_apps{status="up"} 2`, `availmon_apps{status="unavailable"} 1`} {
		if !strings.Contains(m, s) {
			t.Errorf("/metrics lacks %s", s)
		}
	}
	_, body = get(t, tm.h, "/api/metrics/summary")
	sum := body["data"].(map[string]any)
	// Two cycles of checkout and billing are left of the six checks.
	if sum["total_requests"] != 4.0 || len(sum["apps_summary"].([]any)) != 3 {
		t.Errorf("summary: total_requests %v, %d apps; want 4 and 3", sum["total_requests"], len(sum["apps_summary"].([]any)))
	}
	_, body = get(t, tm.h, "/api/status")
	if st := body["data"].(map[string]any); st["total_applications"] != 3.0 || st["applications_up"] != 2.0 {
		t.Errorf("status: %v", st)
	}

	tm.src.Set("payments", StatusUp, 0)
	tm.clock.Advance(time.Second)
	tm.scrape(t)
	_, body = get(t, tm.h, "/api/apps/payments")
	if d := body["data"].(map[string]any); d["status"] != "up" {
		t.Errorf("added app after a cycle: %v", d["status"])
	}
}

// An invalid set changes nothing, and every problem is reported.
func TestReconfigureInvalid(t *testing.T) {
	tm := newTestMonitor(t)
	tm.scrape(t)
	before := tm.snap.Load()
	from := tm.events.cursor()
	o := reconfigured(tm)
	o.Apps = append(o.Apps, App{Name: "checkout", Location: "Atlantis"}, App{Name: "x", Location: "Tel Aviv", Backend: "nope"})
	_, err := tm.Reconfigure(o)
	if err == nil {
		t.Fatal("Reconfigure accepted an invalid set")
	}
	for _, s := range []string{`app "checkout" is listed twice`, `unknown location "Atlantis"`, `unknown backend "nope"`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	if tm.snap.Load() != before || tm.events.cursor() != from {
		t.Error("an invalid Reconfigure published something")
	}
	if d := cmp.Diff([]string{"checkout", "search", "billing"}, appNames(t, tm.h)); d != "" {
		t.Errorf("apps (-want +got):\n%s", d)
	}
}

// The same set again is no change and no event; locations and backends are
// added and removed by name, and a removed backend's scrape series go.
func TestReconfigureLocationsAndBackends(t *testing.T) {
	tm := newTestMonitor(t)
	tm.scrape(t)
	from := tm.events.cursor()
	o := Options{
		Locations: []Location{telAviv, frankfurt},
		Apps: []App{
			{Name: "checkout", Location: "Tel Aviv", Metric: `up{job="checkout"}`},
			{Name: "search", Location: "Tel Aviv", Metric: `up{job="search"}`},
			{Name: "billing", Location: "Frankfurt", Metric: `up{job="billing"}`},
		},
		Backends: []Backend{{Name: "main", URL: testPromURL, Source: tm.src, BatchSize: 10}},
	}
	ch, err := tm.Reconfigure(o)
	if err != nil || !ch.Empty() || tm.events.cursor() != from {
		t.Fatalf("the same set: change %+v, err %v, events %d", ch, err, tm.events.cursor()-from)
	}
	if !strings.Contains(metricsText(t, tm.h), `availmon_scrape_errors_total{target="main"}`) {
		t.Fatal("before: no scrape series for main")
	}

	paris := Location{Name: "Paris", Latitude: 48.85, Longitude: 2.35}
	src2 := newFakeSource()
	src2.Set("louvre", StatusUp, 0)
	o = Options{
		Locations: []Location{paris},
		Apps:      []App{{Name: "louvre", Location: "Paris"}},
		Backends:  []Backend{{Name: "other", Source: src2}},
	}
	ch, err = tm.Reconfigure(o)
	if err != nil {
		t.Fatal(err)
	}
	want := ConfigChange{AppsAdded: []string{"louvre"}, AppsRemoved: []string{"billing", "checkout", "search"},
		LocationsAdded: []string{"Paris"}, LocationsRemoved: []string{"Frankfurt", "Tel Aviv"},
		BackendsAdded: []string{"other"}, BackendsRemoved: []string{"main"}, Apps: 1}
	if d := cmp.Diff(want, ch); d != "" {
		t.Errorf("change (-want +got):\n%s", d)
	}
	m := metricsText(t, tm.h)
	if strings.Contains(m, `target="main"`) || !strings.Contains(m, `availmon_scrape_errors_total{target="other"} 0`) {
		t.Errorf("/metrics after swapping backends:\n%s", m)
	}
	if code, _ := get(t, tm.h, "/api/locations/Tel%20Aviv"); code != http.StatusNotFound {
		t.Errorf("removed location: %d, want 404", code)
	}
	tm.scrape(t)
	_, body := get(t, tm.h, "/api/locations/Paris")
	if s := body["data"].(map[string]any)["summary"].(map[string]any); s["up_count"] != 1.0 {
		t.Errorf("Paris after a cycle: %v", s)
	}
	_, body = get(t, tm.h, "/api/config")
	if c := body["data"].(map[string]any); c["total_apps"] != 1.0 || c["total_locations"] != 1.0 {
		t.Errorf("config: %v", c)
	}
}

// A moved app's 24h counters move with it to its new location.
func TestReconfigureMovesCounters(t *testing.T) {
	tm := newTestMonitor(t)
	tm.src.Set("search", StatusUp, 0)
	tm.src.Set("checkout", StatusDown, 0)
	tm.scrape(t)
	o := reconfigured(tm)
	o.Apps = []App{{Name: "checkout", Location: "Tel Aviv"}, {Name: "search", Location: "Frankfurt"}}
	if _, err := tm.Reconfigure(o); err != nil {
		t.Fatal(err)
	}
	_, body := get(t, tm.h, "/api/metrics/summary")
	got := map[string]any{}
	for _, l := range body["data"].(map[string]any)["locations_summary"].([]any) {
		l := l.(map[string]any)
		got[l["name"].(string)] = l["availability"]
	}
	if d := cmp.Diff(map[string]any{"Tel Aviv": 0.0, "Frankfurt": 100.0}, got); d != "" {
		t.Errorf("24h availability per location (-want +got):\n%s", d)
	}
}

// Readers see the old set or the new one, never a mix, while cycles and
// reconfigurations run (under -race this also checks the swap).
func TestReconfigureAtomic(t *testing.T) {
	tm := newTestMonitor(t)
	a, b := reconfigured(tm), reconfigured(tm)
	a.Apps = a.Apps[:0]
	for i := range 50 {
		a.Apps = append(a.Apps, App{Name: fmt.Sprintf("a%02d", i), Location: "Tel Aviv"})
	}
	for i := range 30 {
		b.Apps = append(b.Apps[:0:0], b.Apps...)
		b.Apps = append(b.Apps, App{Name: fmt.Sprintf("b%02d", i), Location: "Frankfurt"})
	}
	set := func(o Options) string {
		var n []string
		for _, a := range o.Apps {
			n = append(n, a.Name)
		}
		return strings.Join(n, ",")
	}
	valid := map[string]bool{set(a): true, set(b): true, "checkout,search,billing": true}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			o := a
			if i%2 == 1 {
				o = b
			}
			if _, err := tm.Reconfigure(o); err != nil {
				t.Error(err)
				return
			}
			_ = tm.Scrape(ctx)
		}
	})
	srv := httptest.NewServer(tm.h)
	defer srv.Close()
	for range 200 {
		_, body := get(t, tm.h, "/api/apps")
		var names []string
		for _, x := range body["data"].([]any) {
			names = append(names, x.(map[string]any)["name"].(string))
		}
		if got := strings.Join(names, ","); !valid[got] || int(body["meta"].(map[string]any)["count"].(float64)) != len(names) {
			t.Fatalf("a reader saw a mixed set: %s", got)
		}
		_, body = get(t, tm.h, "/api/status")
		st := body["data"].(map[string]any)
		n := st["total_applications"].(float64)
		if n != 3 && n != float64(len(a.Apps)) && n != float64(len(b.Apps)) ||
			st["applications_up"].(float64)+st["applications_down"].(float64)+st["applications_unavailable"].(float64) != n {
			t.Fatalf("status of a mixed set: %v", st)
		}
	}
	cancel()
	wg.Wait()
	if !slices.Contains([]int{len(a.Apps), len(b.Apps)}, len(tm.snap.Load().apps)) {
		t.Errorf("final set has %d apps", len(tm.snap.Load().apps))
	}
}

// The config_update of a reconfiguration reaches /api/ws with every list.
func TestReconfigureWS(t *testing.T) {
	tm := newTestMonitor(t)
	tm.scrape(t)
	srv := httptest.NewServer(tm.h)
	defer srv.Close()
	c := dialWS(t, srv, "/api/ws", nil)
	for range 3 { // the snapshot
		readMsg(t, c)
	}
	readSnapshotEnd(t, c)
	if _, err := tm.Reconfigure(reconfigured(tm)); err != nil {
		t.Fatal(err)
	}
	msg := readMsg(t, c)
	want := map[string]any{"type": "config_update", "timestamp": ts(t0), "data": map[string]any{
		"apps_added": []any{"payments"}, "apps_removed": []any{"search"}, "apps_changed": []any{"billing"},
		"locations_added": []any{}, "locations_removed": []any{}, "locations_changed": []any{},
		"backends_added": []any{}, "backends_removed": []any{}, "backends_changed": []any{},
		"total_apps": 3.0,
	}}
	if d := cmp.Diff(want, msg); d != "" {
		t.Errorf("config_update (-want +got):\n%s", d)
	}
	// A new client's snapshot has the new set's apps that have a state; the
	// added one, not checked yet, comes with its first check.
	c2 := dialWS(t, srv, "/api/ws", nil)
	var got []string
	for range 2 {
		got = append(got, readMsg(t, c2)["data"].(map[string]any)["app"].(string))
	}
	if d := cmp.Diff([]string{"checkout", "billing"}, got); d != "" {
		t.Errorf("snapshot after the change (-want +got):\n%s", d)
	}
	if d := cmp.Diff(snapshotDoneMsg(t0, 2, 1), readMsg(t, c2)); d != "" {
		t.Errorf("end of the snapshot after the change (-want +got):\n%s", d)
	}
	tm.scrape(t)
	if d := cmp.Diff(statusMsg(t0, "payments", "Frankfurt", "unavailable", nil), readMsg(t, c2)); d != "" {
		t.Errorf("after the next cycle (-want +got):\n%s", d)
	}
}

// Subscribe, the Go event API, delivers the same config_update with what
// changed, after the snapshot of the old set.
func TestReconfigureSubscribe(t *testing.T) {
	tm := newTestMonitor(t)
	tm.scrape(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan Event, 10)
	snapshotTaken := make(chan struct{})
	go func() {
		n := 0
		for ev, err := range tm.Subscribe(ctx, EventFilter{}) {
			if err != nil {
				return
			}
			if n++; n == 1 {
				close(snapshotTaken) // the old set's snapshot is being delivered
			}
			if n > 3 { // after the snapshot of three apps
				got <- ev
				return
			}
		}
	}()
	<-snapshotTaken
	if _, err := tm.Reconfigure(reconfigured(tm)); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-got:
		if ev.Type != EventConfigUpdate || ev.Change == nil || !cmp.Equal(ev.Change.AppsAdded, []string{"payments"}) {
			t.Errorf("event after the snapshot: %+v", ev)
		}
	case <-ctx.Done():
		t.Fatal("no config_update from Subscribe")
	}
}

// An app's 24-hour window, its location's and the system's count the same
// response times, so that their averages agree, and removing the app takes
// back exactly what it added, even when its response times (a
// response_time_metric can report anything) overflow what its window sums.
func TestDayWindowsAgreeAndForget(t *testing.T) {
	tm := newTestMonitor(t)
	for _, rt := range []time.Duration{12_345_400, 12_345_400, 12_345_700} {
		tm.src.Set("search", StatusUp, rt)
		tm.scrape(t)
		tm.clock.Advance(time.Second)
	}
	now := tm.clock.Now()
	i := tm.plan.appIndex["search"]
	day := tm.state.appDay.At(i)
	app := day.Sum(now)
	if sys := tm.state.sysDay.Sum(now); *avgResponse(app) != *avgResponse(sys) || app.RTN != sys.RTN {
		t.Errorf("average response time: app %v over %d checks, system %v over %d",
			*avgResponse(app), app.RTN, *avgResponse(sys), sys.RTN)
	}
	tm.src.Set("search", StatusUp, math.MaxInt64) // 9.2e12 µs a check: 31 overflow a slot
	for range 40 {
		tm.scrape(t)
		tm.clock.Advance(time.Second)
	}
	now = tm.clock.Now()
	day = tm.state.appDay.At(i)
	app, loc := day.Sum(now), tm.state.locDay[tm.plan.appLocs[i]].Sum(now)
	if app.RTN >= 43 || app.RTN != loc.RTN || math.Abs(app.RTSum-loc.RTSum) > 1e-3*app.RTSum {
		t.Errorf("after overflowing response times: app %d checks measured, %g s; location %d, %g s",
			app.RTN, app.RTSum, loc.RTN, loc.RTSum)
	}
	if _, err := tm.Reconfigure(reconfigured(tm)); err != nil { // search goes
		t.Fatal(err)
	}
	for _, c := range []history.Counts{tm.state.locDay[tm.plan.locIndex["Tel Aviv"]].Sum(now), tm.state.sysDay.Sum(now)} {
		if c.RTN != 0 || math.Abs(c.RTSum) > 1e-6*float64(math.MaxInt64)/1e9 {
			t.Errorf("the removed app's response times remain: %d checks, %g s", c.RTN, c.RTSum)
		}
	}
}
