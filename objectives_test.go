package availmon

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/availmon/availmon/objective"
)

// mustObjective builds an objective of the test's own definitions.
func mustObjective(t testing.TB, name, target, window string, sub objective.Subject, labels map[string]string) objective.Objective {
	t.Helper()
	tg, err := objective.ParseTarget(target)
	if err != nil {
		t.Fatal(err)
	}
	w, err := objective.ParseWindow(window)
	if err != nil {
		t.Fatal(err)
	}
	return objective.Objective{Name: name, Target: tg, Window: w, Subject: sub, Labels: labels}
}

// objectivesMonitor runs an hour of cycles, every 30s from t0: checkout is
// down for the 5 minutes [5m, 10m), everything else up. checkout and search
// carry team=shop.
func objectivesMonitor(t *testing.T) *testMonitor {
	t.Helper()
	tm := newTestMonitor(t, func(o *Options) {
		o.Apps[0].Labels = map[string]string{"team": "shop"}
		o.Apps[1].Labels = map[string]string{"team": "shop"}
		o.Objectives = []objective.Objective{
			mustObjective(t, "co", "99%", "1d", objective.Subject{App: "checkout"}, map[string]string{"team": "shop", "tier": "1"}),
			mustObjective(t, "tlv", "99.9%", "1d", objective.Subject{Location: "Tel Aviv"}, nil),
			mustObjective(t, "billing-month", "99.9%", "month", objective.Subject{App: "billing"}, map[string]string{"team": "money"}),
			mustObjective(t, "shop", "99.5%", "2d", objective.Subject{Selector: map[string]string{"team": "shop"}, PerApp: true}, nil),
			mustObjective(t, "shop-all", "99.5%", "2d", objective.Subject{Selector: map[string]string{"team": "shop"}}, nil),
		}
	})
	for k := range 121 {
		tm.clock.Set(t0.Add(time.Duration(k) * 30 * time.Second))
		checkout := StatusUp
		if k >= 10 && k < 20 {
			checkout = StatusDown
		}
		tm.src.Set("checkout", checkout, time.Millisecond)
		tm.src.Set("search", StatusUp, time.Millisecond)
		tm.src.Set("billing", StatusUp, time.Millisecond)
		tm.scrape(t)
	}
	return tm
}

// The figures of the scripted hour against figures worked out by hand from
// the definitions: up 3300 s and down 300 s for checkout, 3600 s up for
// search and billing, the rest of each window unknown.
func TestObjectivesFigures(t *testing.T) {
	tm := objectivesMonitor(t)
	code, body := get(t, tm.h, "/api/objectives")
	if code != http.StatusOK {
		t.Fatalf("GET /api/objectives = %d %v", code, body)
	}
	got := map[string]obj{}
	for _, o := range body["data"].([]any) {
		got[o.(obj)["name"].(string)] = o.(obj)
	}
	if body["meta"].(obj)["count"] != 6.0 {
		t.Errorf("meta: %v, want count 6", body["meta"])
	}
	burns := func(b5m, b30m, rest any) obj {
		return obj{"5m": b5m, "30m": b30m, "1h": rest, "2h": rest, "6h": rest, "1d": rest, "3d": rest}
	}
	budget := func(share, counted, down float64) obj {
		total := share * counted
		return obj{"total_seconds": total, "remaining_seconds": total - down, "remaining_ratio": (total - down) / total}
	}
	// Berlin-free: the month is November 2026 in UTC; its rest after
	// t0+1h counted as if all of it will be observed.
	now := t0.Add(time.Hour)
	rest := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).Sub(now).Seconds()
	want := map[string]obj{
		"co": {"name": "co", "target": 0.99, "window": "1d", "subject": obj{"kind": "app", "name": "checkout"},
			"labels": obj{"team": "shop", "tier": "1"}, "attainment": 3300.0 / 3600, "coverage": 3600.0 / 86400,
			"error_budget": budget(0.01, 3600, 300), "burn_rates": burns(0.0, 0.0, 300.0/3600/0.01),
			"projected_attainment": nil, "state": "breached"},
		"tlv": {"name": "tlv", "target": 0.999, "window": "1d", "subject": obj{"kind": "location", "name": "Tel Aviv"},
			"labels": obj{}, "attainment": 6900.0 / 7200, "coverage": 7200.0 / (2 * 86400),
			"error_budget": budget(0.001, 7200, 300), "burn_rates": burns(0.0, 0.0, 300.0/7200/0.001),
			"projected_attainment": nil, "state": "breached"},
		"billing-month": {"name": "billing-month", "target": 0.999, "window": "month", "subject": obj{"kind": "app", "name": "billing"},
			"labels": obj{"team": "money"}, "attainment": 1.0, "coverage": 3600 / now.Sub(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)).Seconds(),
			"error_budget": budget(0.001, 3600+rest, 0), "burn_rates": burns(0.0, 0.0, 0.0),
			"projected_attainment": 1.0, "state": "ok"},
		"shop:checkout": {"name": "shop:checkout", "target": 0.995, "window": "2d", "subject": obj{"kind": "app", "name": "checkout"},
			"labels": obj{}, "attainment": 3300.0 / 3600, "coverage": 3600.0 / (2 * 86400),
			"error_budget": budget(0.005, 3600, 300), "burn_rates": burns(0.0, 0.0, 300.0/3600/0.005),
			"projected_attainment": nil, "state": "breached"},
		"shop:search": {"name": "shop:search", "target": 0.995, "window": "2d", "subject": obj{"kind": "app", "name": "search"},
			"labels": obj{}, "attainment": 1.0, "coverage": 3600.0 / (2 * 86400),
			"error_budget": budget(0.005, 3600, 0), "burn_rates": burns(0.0, 0.0, 0.0),
			"projected_attainment": nil, "state": "ok"},
		"shop-all": {"name": "shop-all", "target": 0.995, "window": "2d", "subject": obj{"kind": "selector", "name": `{team="shop"}`},
			"labels": obj{}, "attainment": 6900.0 / 7200, "coverage": 7200.0 / (4 * 86400),
			"error_budget": budget(0.005, 7200, 300), "burn_rates": burns(0.0, 0.0, 300.0/7200/0.005),
			"projected_attainment": nil, "state": "breached"},
	}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(1e-9, 1e-6)); d != "" {
		t.Errorf("/api/objectives (-want +got):\n%s", d)
	}
}

// The detail carries the budget's course a point a day; filters pick by
// state and label; unknown names and parameters are refused.
func TestObjectivesAPI(t *testing.T) {
	tm := objectivesMonitor(t)
	code, body := get(t, tm.h, "/api/objectives/co")
	if code != http.StatusOK {
		t.Fatalf("GET /api/objectives/co = %d %v", code, body)
	}
	series := body["data"].(obj)["budget_series"].([]any)
	// The window [t0+1h-1d, t0+1h): the end of the 22nd and now.
	want := []any{
		obj{"time": ts(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)), "remaining_ratio": nil, "attainment": nil},
		obj{"time": ts(t0.Add(time.Hour)), "remaining_ratio": (36.0 - 300) / 36, "attainment": 3300.0 / 3600},
	}
	if d := cmp.Diff(want, series, cmpopts.EquateApprox(1e-9, 0)); d != "" {
		t.Errorf("budget_series (-want +got):\n%s", d)
	}
	names := func(q string) []string {
		t.Helper()
		code, body := get(t, tm.h, "/api/objectives?"+q)
		if code != http.StatusOK {
			t.Fatalf("GET /api/objectives?%s = %d %v", q, code, body)
		}
		var out []string
		for _, o := range body["data"].([]any) {
			out = append(out, o.(obj)["name"].(string))
		}
		if body["meta"].(obj)["count"] != float64(len(out)) {
			t.Errorf("?%s: count %v for %d objectives", q, body["meta"].(obj)["count"], len(out))
		}
		return out
	}
	for q, want := range map[string][]string{
		"state=ok":                      {"billing-month", "shop:search"},
		"state=at_risk":                 nil,
		"label.team=shop":               {"co"},
		"label.team=money&state=ok":     {"billing-month"},
		"label.tier=1&label.team=money": nil,
	} {
		if d := cmp.Diff(want, names(q)); d != "" {
			t.Errorf("?%s (-want +got):\n%s", q, d)
		}
	}
	for _, tt := range []struct {
		target string
		code   int
		msg    string
	}{
		{"/api/objectives/nope", http.StatusNotFound, "objective not found"},
		{"/api/objectives?state=fine", http.StatusBadRequest, "invalid state"},
		{"/api/objectives?label.owner=x", http.StatusBadRequest, "unknown label key"},
		{"/api/objectives?status=up", http.StatusBadRequest, `unknown query parameter "status"`},
		{"/api/objectives?state=ok&state=breached", http.StatusBadRequest, "invalid state"},
	} {
		code, body := get(t, tm.h, tt.target)
		if code != tt.code || !strings.Contains(body["error"].(obj)["message"].(string), tt.msg) {
			t.Errorf("GET %s = %d %v; want %d %q", tt.target, code, body, tt.code, tt.msg)
		}
	}
}

// The list and a detail are cached bodies: the same ETag within a
// snapshot, 304 to a conditional request, gzip on request.
func TestObjectivesCached(t *testing.T) {
	tm := objectivesMonitor(t)
	for _, path := range []string{"/api/objectives", "/api/objectives/co"} {
		a := do(t, tm.h, http.MethodGet, path, "", nil)
		b := do(t, tm.h, http.MethodGet, path, "", nil)
		etag := a.Header().Get("ETag")
		if a.Code != http.StatusOK || etag == "" || b.Header().Get("ETag") != etag || !bytes.Equal(a.Body.Bytes(), b.Body.Bytes()) {
			t.Errorf("%s: %d %q then %q", path, a.Code, etag, b.Header().Get("ETag"))
		}
		c := do(t, tm.h, http.MethodGet, path, "", http.Header{"If-None-Match": {etag}})
		if c.Code != http.StatusNotModified {
			t.Errorf("%s with If-None-Match: %d, want 304", path, c.Code)
		}
		g := do(t, tm.h, http.MethodGet, path, "", http.Header{"Accept-Encoding": {"gzip"}})
		if path == "/api/objectives" && g.Header().Get("Content-Encoding") != "gzip" {
			t.Errorf("%s: no gzip", path)
		}
	}
}

// An objective that changes state is announced: checkout's objective is ok
// through its first up checks, and breached at the cycle after its first
// down check, which records the down time up to it.
func TestObjectiveStateEvent(t *testing.T) {
	tm := newTestMonitor(t, func(o *Options) {
		o.Objectives = []objective.Objective{mustObjective(t, "co", "99%", "1d", objective.Subject{App: "checkout"}, nil)}
	})
	for k, st := range []Status{StatusUp, StatusUp, StatusDown, StatusUp} {
		tm.clock.Set(t0.Add(time.Duration(k) * 30 * time.Second))
		tm.src.Set("checkout", st, time.Millisecond)
		tm.src.Set("search", StatusUp, time.Millisecond)
		tm.src.Set("billing", StatusUp, time.Millisecond)
		tm.scrape(t)
	}
	evs, _, _, _ := tm.events.read(0, nil)
	var got []Event
	for _, e := range evs {
		if e.Type == EventObjectiveState {
			got = append(got, e)
		}
	}
	want := []Event{{Type: EventObjectiveState, Time: t0.Add(90 * time.Second),
		Objective: &ObjectiveEvent{Name: "co", State: "breached", PreviousState: "ok"}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("objective events (-want +got):\n%s", d)
	}
	msg := string(eventMessage(got[0]))
	if wantMsg := `{"type":"objective_state","timestamp":"2026-11-22T12:01:30.000Z","data":{"objective":"co","state":"breached","previous_state":"ok"}}`; msg != wantMsg {
		t.Errorf("ws message %s, want %s", msg, wantMsg)
	}
	// A stream filtered to apps or locations does not get it.
	if (EventFilter{Apps: []string{"checkout"}}).compile().pass(&got[0]) {
		t.Error("an apps-filtered stream passes an objective event")
	}
}

// Reconfigure adds, changes and removes objectives; a bad one is refused
// with the rest of the change.
func TestObjectivesReconfigure(t *testing.T) {
	base := func() Options {
		return Options{
			Locations: []Location{telAviv, frankfurt},
			Apps: []App{
				{Name: "checkout", Location: "Tel Aviv", Metric: `up{job="checkout"}`},
				{Name: "search", Location: "Tel Aviv", Metric: `up{job="search"}`},
				{Name: "billing", Location: "Frankfurt", Metric: `up{job="billing"}`},
			},
		}
	}
	tm := newTestMonitor(t, func(o *Options) {
		o.Objectives = []objective.Objective{
			mustObjective(t, "a", "99%", "30d", objective.Subject{App: "checkout"}, nil),
			mustObjective(t, "b", "99%", "30d", objective.Subject{App: "search"}, nil),
		}
	})
	list := func() map[string]float64 {
		_, body := get(t, tm.h, "/api/objectives")
		out := map[string]float64{}
		for _, o := range body["data"].([]any) {
			out[o.(obj)["name"].(string)] = o.(obj)["target"].(float64)
		}
		return out
	}
	if d := cmp.Diff(map[string]float64{"a": 0.99, "b": 0.99}, list()); d != "" {
		t.Fatalf("before (-want +got):\n%s", d)
	}
	opts := base()
	opts.Backends = []Backend{{Name: "main", URL: testPromURL, Source: tm.src, BatchSize: 10}}
	opts.Objectives = []objective.Objective{
		mustObjective(t, "a", "99.9%", "30d", objective.Subject{App: "checkout"}, nil),       // changed
		mustObjective(t, "c", "95%", "month", objective.Subject{Location: "Frankfurt"}, nil), // added; b removed
	}
	if _, err := tm.Reconfigure(opts); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]float64{"a": 0.999, "c": 0.95}, list()); d != "" {
		t.Errorf("after (-want +got):\n%s", d)
	}
	opts.Objectives = append(opts.Objectives, mustObjective(t, "d", "95%", "month", objective.Subject{Location: "Mars"}, nil))
	if _, err := tm.Reconfigure(opts); err == nil || !strings.Contains(err.Error(), `no location is named "Mars"`) {
		t.Errorf("Reconfigure with an unknown location: %v", err)
	}
	if d := cmp.Diff(map[string]float64{"a": 0.999, "c": 0.95}, list()); d != "" {
		t.Errorf("after a refused change (-want +got):\n%s", d)
	}
}

// New refuses what cannot be evaluated.
func TestObjectivesNewErrors(t *testing.T) {
	for _, tt := range []struct {
		o    objective.Objective
		want string
	}{
		{objective.Objective{Name: "x", Target: 1.5, Window: objective.Window{Calendar: 1}, Subject: objective.Subject{App: "checkout"}}, "must be above 0% and at most 100%"},
		{mustObjective(t, "x", "99%", "30d", objective.Subject{App: "nope"}, nil), `no app is named "nope"`},
		{mustObjective(t, "x", "99%", "30d", objective.Subject{Service: "nope"}, nil), `no service is named "nope"`},
		{mustObjective(t, "x", "99%", "30d", objective.Subject{}, nil), "no subject"},
	} {
		_, err := New(Options{Locations: []Location{telAviv}, Apps: []App{{Name: "checkout", Location: "Tel Aviv", Metric: "up"}},
			Source: newFakeSource(), Objectives: []objective.Objective{tt.o}})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New with %+v: %v; want %q", tt.o, err, tt.want)
		}
	}
}

// /metrics carries the objective families with their labels, and promtool
// finds nothing to say about them.
func TestObjectivesMetrics(t *testing.T) {
	tm := objectivesMonitor(t)
	rec := do(t, tm.h, http.MethodGet, "/metrics", "", nil)
	body := rec.Body.String()
	for _, line := range []string{
		`availmon_objective_target_ratio{objective="co",team="shop",tier="1"} 0.99`,
		`availmon_objective_target_ratio{objective="tlv",team="",tier=""} 0.999`,
		`availmon_objective_state{objective="co",state="breached",team="shop",tier="1"} 1`,
		`availmon_objective_state{objective="co",state="ok",team="shop",tier="1"} 0`,
		`availmon_objective_burn_rate{objective="co",team="shop",tier="1",window="5m"} 0`,
		`availmon_objective_error_budget_remaining_seconds{objective="co",team="shop",tier="1"} -264`,
		`availmon_objective_attainment_ratio{objective="billing-month",team="money",tier=""} 1`,
	} {
		if !strings.Contains(body, line+"\n") {
			t.Errorf("/metrics lacks %s", line)
		}
	}
	if v := `availmon_objective_burn_rate{objective="co",team="shop",tier="1",window="1h"} `; !strings.Contains(body, v) {
		t.Errorf("/metrics lacks %s", v)
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("promtool is not installed")
		}
		t.Skip("promtool is not installed")
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// ?value=objective shows the first objective covering the subject: its
// attainment against its target.
func TestObjectiveBadge(t *testing.T) {
	tm := objectivesMonitor(t)
	rec := do(t, tm.h, http.MethodGet, "/api/badges/apps/billing.svg?value=objective", "", nil)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "<title>billing-month: 100.000% / 99.9%</title>") {
		t.Errorf("billing's objective badge: %d %s", rec.Code, rec.Body)
	}
	rec = do(t, tm.h, http.MethodGet, "/api/badges/locations/Tel%20Aviv.svg?value=objective", "", nil)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "95.833% / 99.9%") || !strings.Contains(rec.Body.String(), colorDown) {
		t.Errorf("Tel Aviv's objective badge: %d %s", rec.Code, rec.Body)
	}
	if rec := do(t, tm.h, http.MethodGet, "/api/badges/locations/Frankfurt.svg?value=objective", "", nil); rec.Code != http.StatusNotFound {
		t.Errorf("a badge of no objective: %d, want 404", rec.Code)
	}
}

// An objective may name an app a discovery rule has not found yet: it has
// no figures until the app is found, then counts its time, as the
// objective of its location counts it too.
func TestObjectivesOnDiscoveredApps(t *testing.T) {
	tm, q := discoveryMonitor(t, func(o *Options) {
		o.Objectives = []objective.Objective{
			mustObjective(t, "cart", "99%", "1d", objective.Subject{App: "cart-il"}, nil),
			mustObjective(t, "tlv", "99%", "1d", objective.Subject{Location: "Tel Aviv"}, nil),
		}
	})
	for _, a := range []string{"checkout", "search", "billing"} {
		tm.src.Set(a, StatusUp, 0)
	}
	attainment := func(name string) any {
		t.Helper()
		code, body := get(t, tm.h, "/api/objectives/"+name)
		if code != http.StatusOK {
			t.Fatalf("GET /api/objectives/%s = %d %v", name, code, body)
		}
		return body["data"].(obj)["attainment"]
	}
	if got := attainment("cart"); got != nil {
		t.Errorf("before discovery: attainment %v, want null", got)
	}
	q.set(nil, sample(0, "service", "cart", "region", "il")) // its series says down
	for k := range 3 {
		tm.clock.Set(t0.Add(time.Duration(k) * time.Minute))
		tm.scrape(t)
	}
	// cart-il is found at the first cycle, checked down from the second.
	if got := attainment("cart"); got != 0.0 {
		t.Errorf("after discovery: attainment %v, want 0 (down since its first check)", got)
	}
	if got, ok := attainment("tlv").(float64); !ok || got >= 1 {
		t.Errorf("Tel Aviv's attainment %v, want cart-il's down time in it", attainment("tlv"))
	}
}
