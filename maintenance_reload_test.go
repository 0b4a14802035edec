package availmon

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/availmon/availmon/hmac"
)

// inMaintenance lists the apps shown in maintenance.
func inMaintenance(t *testing.T, tm *testMonitor) map[string]bool {
	t.Helper()
	_, body := get(t, tm.h, "/api/apps")
	out := map[string]bool{}
	for _, a := range body["data"].([]any) {
		if a := a.(map[string]any); a["maintenance"] == true {
			out[a["name"].(string)] = true
		}
	}
	return out
}

// windowIDs lists the ids of GET /api/maintenance, in order.
func windowIDs(t *testing.T, tm *testMonitor) []string {
	t.Helper()
	_, body := get(t, tm.h, "/api/maintenance")
	var out []string
	for _, w := range body["data"].([]any) {
		out = append(out, w.(map[string]any)["id"].(string))
	}
	return out
}

// clockedAuthMonitor is newAuthMonitor whose tm.clock is the monitor's.
func clockedAuthMonitor(t *testing.T) *testMonitor {
	t.Helper()
	clock := newFakeClock(t0)
	v, err := hmac.NewVerifier(hmac.VerifierOptions{Secrets: [][]byte{authSecret}, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	tm := newTestMonitor(t, func(o *Options) { o.Clock, o.Authenticator = clock, v })
	tm.clock = clock
	return tm
}

// Reconfigure replaces the configuration's windows and keeps the API's;
// the new windows apply from the next cycle.
func TestReconfigureMaintenance(t *testing.T) {
	hour := func(app string) MaintenanceWindow {
		return MaintenanceWindow{App: app, From: t0, To: t0.Add(time.Hour)}
	}
	tm := newAuthMonitor(t, false)
	opts := reconfigured(tm)
	opts.Apps = append(opts.Apps, App{Name: "search", Location: "Tel Aviv", Metric: `up{job="search"}`})
	opts.Maintenance = []MaintenanceWindow{hour("checkout")}
	if _, err := tm.Reconfigure(opts); err != nil {
		t.Fatal(err)
	}
	if rec := serve(tm.h, signedReq(t, "POST", "/api/maintenance", `{"app":"search","from":"2026-11-22T12:00:00Z","to":"2026-11-22T13:00:00Z"}`, authSecret, t0)); rec.Code != http.StatusCreated {
		t.Fatalf("POST: %d %s", rec.Code, rec.Body)
	}
	tm.scrape(t)
	if got := inMaintenance(t, tm); !got["checkout"] || !got["search"] || len(got) != 2 {
		t.Errorf("in maintenance: %v, want checkout (config) and search (API)", got)
	}

	opts.Maintenance = []MaintenanceWindow{{ID: "billing-upgrade", App: "billing", From: t0, To: t0.Add(time.Hour)}}
	if _, err := tm.Reconfigure(opts); err != nil {
		t.Fatal(err)
	}
	tm.scrape(t)
	if got := inMaintenance(t, tm); !got["billing"] || !got["search"] || len(got) != 2 {
		t.Errorf("in maintenance after the reconfiguration: %v, want billing (config) and search (API)", got)
	}
	if got := strings.Join(windowIDs(t, tm), ","); got != "billing-upgrade,api-1" {
		t.Errorf("windows: %s", got)
	}

	// A window naming an app the same change removes is refused: nothing
	// changes.
	opts.Apps = opts.Apps[:3]
	opts.Maintenance = append(opts.Maintenance, hour("search"))
	if _, err := tm.Reconfigure(opts); err == nil || !strings.Contains(err.Error(), `maintenance window "config-2": no app is named "search"`) {
		t.Errorf("Reconfigure with a window on a removed app: %v", err)
	}
	if n := len(appNames(t, tm.h)); n != 4 {
		t.Errorf("a refused reconfiguration changed the apps: %d", n)
	}
	if got := strings.Join(windowIDs(t, tm), ","); got != "billing-upgrade,api-1" {
		t.Errorf("a refused reconfiguration changed the windows: %s", got)
	}
}

// A window of a duration alone starts when the monitor takes it, through
// the API and the configuration; a reconfiguration with the same window
// keeps its start, one with another duration starts it again.
func TestMaintenanceStartsNow(t *testing.T) {
	tm := clockedAuthMonitor(t)
	tm.clock.Advance(5 * time.Minute)
	rec := serve(tm.h, signedReq(t, "POST", "/api/maintenance", `{"location":"Frankfurt","duration":"1h"}`, authSecret, tm.clock.Now()))
	body := decode(t, rec.Body.Bytes())
	if d, _ := body["data"].(map[string]any); rec.Code != http.StatusCreated || d["from"] != ts(t0.Add(5*time.Minute)) ||
		d["to"] != ts(t0.Add(65*time.Minute)) || d["active"] != true {
		t.Errorf("POST a window that starts now: %d %v", rec.Code, body)
	}

	opts := reconfigured(tm)
	window := MaintenanceWindow{App: "checkout", Duration: time.Hour}
	opts.Maintenance = []MaintenanceWindow{window}
	if _, err := tm.Reconfigure(opts); err != nil {
		t.Fatal(err)
	}
	span := func() (any, any) {
		_, body := get(t, tm.h, "/api/maintenance/config-1")
		d := body["data"].(map[string]any)
		return d["from"], d["to"]
	}
	if from, to := span(); from != ts(t0.Add(5*time.Minute)) || to != ts(t0.Add(65*time.Minute)) {
		t.Errorf("config window: %v to %v", from, to)
	}
	tm.clock.Advance(30 * time.Minute)
	if _, err := tm.Reconfigure(opts); err != nil {
		t.Fatal(err)
	}
	if from, to := span(); from != ts(t0.Add(5*time.Minute)) || to != ts(t0.Add(65*time.Minute)) {
		t.Errorf("the same window after a reconfiguration: %v to %v, want its first start kept", from, to)
	}
	tm.scrape(t)
	if got := inMaintenance(t, tm); !got["checkout"] || !got["billing"] {
		t.Errorf("in maintenance: %v, want checkout (config) and billing (API, Frankfurt)", got)
	}
	opts.Maintenance[0].Duration = 2 * time.Hour
	if _, err := tm.Reconfigure(opts); err != nil {
		t.Fatal(err)
	}
	if from, to := span(); from != ts(t0.Add(35*time.Minute)) || to != ts(t0.Add(155*time.Minute)) {
		t.Errorf("a changed window: %v to %v, want it to start now", from, to)
	}
}

// Reconfigure applies FailThreshold and SuccessThreshold, to listed and
// discovered apps.
func TestReconfigureThresholds(t *testing.T) {
	tm, q := discoveryMonitor(t)
	run := func(raw Status) {
		t.Helper()
		tm.src.Set("checkout", raw, time.Millisecond)
		q.set(nil, sample(map[Status]float64{StatusUp: 1, StatusDown: 0}[raw], "service", "cart", "region", "il"))
		tm.scrape(t)
		tm.clock.Advance(30 * time.Second)
	}
	run(StatusUp)
	opts := reconfigured(tm)
	opts.Backends = append(opts.Backends, Backend{Name: "prom", URL: "http://prom:9090", Source: q})
	opts.Locations = tm.plan.locations
	opts.Discover = []DiscoveryRule{testRule}
	for i := range opts.Apps {
		opts.Apps[i].Backend = "main"
	}
	opts.FailThreshold = 2
	if _, err := tm.Reconfigure(opts); err != nil {
		t.Fatal(err)
	}
	run(StatusDown)
	if got := states(t, tm.h); got["checkout"] != "up@Tel Aviv" || got["cart-il"] != "up@Tel Aviv" {
		t.Errorf("after one down check with fail_threshold 2: %v, want both still up", got)
	}
	run(StatusDown)
	if got := states(t, tm.h); got["checkout"] != "down@Tel Aviv" || got["cart-il"] != "down@Tel Aviv" {
		t.Errorf("after two: %v, want both down", got)
	}
}

// Windows of the configuration name discovered apps by name and by the
// labels of their series; New and Reconfigure accept names and keys that
// no app has yet when there are discovery rules.
func TestMaintenanceDiscoveredApps(t *testing.T) {
	windows := []MaintenanceWindow{
		{ID: "by-name", App: "cart-il", From: t0, To: t0.Add(time.Hour)},
		{ID: "by-label", Labels: map[string]string{"service": "search"}, From: t0, To: t0.Add(time.Hour)},
	}
	tm, q := discoveryMonitor(t, func(o *Options) { o.Maintenance = windows })
	q.set(nil, sample(1, "service", "cart", "region", "il"), sample(1, "service", "search", "region", "de"),
		sample(1, "service", "shop", "region", "il"))
	tm.scrape(t)
	if got := inMaintenance(t, tm); !got["cart-il"] || !got["search-de"] || len(got) != 2 {
		t.Errorf("in maintenance: %v, want cart-il (by name) and search-de (by label)", got)
	}

	// Through Reconfigure too.
	var opts Options
	opts.Locations, opts.Backends, opts.Apps, opts.Discover = tm.plan.locations, tm.plan.backends, tm.plan.apps[:tm.plan.nListed], []DiscoveryRule{testRule}
	opts.Maintenance = []MaintenanceWindow{{App: "shop-il", From: t0, To: t0.Add(time.Hour)}}
	if _, err := tm.Reconfigure(opts); err != nil {
		t.Fatal(err)
	}
	tm.scrape(t)
	if got := inMaintenance(t, tm); !got["shop-il"] || len(got) != 1 {
		t.Errorf("in maintenance after Reconfigure: %v, want shop-il", got)
	}
}

// Reconfigure replaces a window that selects discovered apps by the labels
// of their series: the next cycle puts the apps the new labels select in
// maintenance and takes out those only the old ones did, and an app that
// is discovered after the reconfiguration is selected as soon as it is.
func TestReconfigureMaintenanceByLabels(t *testing.T) {
	byLabels := func(labels map[string]string) []MaintenanceWindow {
		return []MaintenanceWindow{{ID: "by-label", Labels: labels, From: t0, To: t0.Add(time.Hour)}}
	}
	tm, q := discoveryMonitor(t, func(o *Options) { o.Maintenance = byLabels(map[string]string{"service": "cart"}) })
	series := []*model.Sample{sample(1, "service", "cart", "region", "il"), sample(1, "service", "search", "region", "de"),
		sample(1, "service", "shop", "region", "il")}
	q.set(nil, series...)
	tm.scrape(t)
	if got := inMaintenance(t, tm); !got["cart-il"] || len(got) != 1 {
		t.Fatalf("in maintenance: %v, want cart-il", got)
	}

	var opts Options
	opts.Locations, opts.Backends, opts.Apps, opts.Discover = tm.plan.locations, tm.plan.backends, tm.plan.apps[:tm.plan.nListed], []DiscoveryRule{testRule}
	opts.Maintenance = byLabels(map[string]string{"region": "il"})
	if _, err := tm.Reconfigure(opts); err != nil {
		t.Fatal(err)
	}
	tm.scrape(t)
	if got := inMaintenance(t, tm); !got["cart-il"] || !got["shop-il"] || len(got) != 2 {
		t.Errorf("in maintenance after selecting region il: %v, want cart-il and shop-il", got)
	}

	opts.Maintenance = byLabels(map[string]string{"service": "search", "region": "de"})
	if _, err := tm.Reconfigure(opts); err != nil {
		t.Fatal(err)
	}
	tm.scrape(t)
	if got := inMaintenance(t, tm); !got["search-de"] || len(got) != 1 {
		t.Errorf("in maintenance after selecting search in de: %v, want search-de alone", got)
	}

	// A label value that no series has yet: its app is selected the cycle
	// it is discovered.
	opts.Maintenance = byLabels(map[string]string{"service": "billing"})
	if _, err := tm.Reconfigure(opts); err != nil {
		t.Fatal(err)
	}
	tm.scrape(t)
	if got := inMaintenance(t, tm); len(got) != 0 {
		t.Errorf("in maintenance before billing is discovered: %v, want none", got)
	}
	q.set(nil, append(series, sample(1, "service", "billing", "region", "eu"))...)
	tm.scrape(t)
	if got := inMaintenance(t, tm); !got["billing-eu"] || len(got) != 1 {
		t.Errorf("in maintenance once billing is discovered: %v, want billing-eu", got)
	}
}
