package availmon

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/common/model"
)

// fakeQuerier is a Source with an Instant method answering what the test
// set; it counts the queries.
type fakeQuerier struct {
	fakeSource
	qmu     sync.Mutex
	series  model.Vector
	qerr    error
	queries int
}

func (f *fakeQuerier) Instant(ctx context.Context, q string) (model.Vector, time.Duration, error) {
	f.qmu.Lock()
	defer f.qmu.Unlock()
	f.queries++
	return append(model.Vector(nil), f.series...), time.Millisecond, f.qerr
}

func (f *fakeQuerier) set(err error, series ...*model.Sample) {
	f.qmu.Lock()
	defer f.qmu.Unlock()
	f.series, f.qerr = nil, err
	for _, s := range series {
		f.series = append(f.series, s)
	}
}

func (f *fakeQuerier) count() int {
	f.qmu.Lock()
	defer f.qmu.Unlock()
	return f.queries
}

func sample(v float64, labels ...string) *model.Sample {
	m := model.Metric{"__name__": "svc_up"}
	for i := 0; i+1 < len(labels); i += 2 {
		m[model.LabelName(labels[i])] = model.LabelValue(labels[i+1])
	}
	return &model.Sample{Metric: m, Value: model.SampleValue(v)}
}

var testRule = DiscoveryRule{
	Name: "services", Backend: "prom", Query: "svc_up",
	AppName: "{{ .service }}-{{ .region }}", LocationLabel: "region", ForgetAfter: time.Hour,
}

// discoveryMonitor is the standard fixture plus a Prometheus-like backend
// "prom" and the rule above; Tel Aviv matches region "il", Frankfurt "eu"
// and "de".
func discoveryMonitor(t *testing.T, change ...func(*Options)) (*testMonitor, *fakeQuerier) {
	q := &fakeQuerier{fakeSource: *newFakeSource()}
	tm := newTestMonitor(t, append([]func(*Options){func(o *Options) {
		o.Locations[0].Match = []string{"il"}
		o.Locations[1].Match = []string{"eu", "de"}
		o.Backends = append(o.Backends, Backend{Name: "prom", URL: "http://prom:9090", Source: q})
		for i := range o.Apps {
			o.Apps[i].Backend = "main"
		}
		o.Discover = []DiscoveryRule{testRule}
	}}, change...)...)
	return tm, q
}

func states(t *testing.T, h http.Handler) map[string]string {
	t.Helper()
	_, body := get(t, h, "/api/apps")
	out := map[string]string{}
	for _, a := range body["data"].([]any) {
		a := a.(map[string]any)
		out[a["name"].(string)] = a["status"].(string) + "@" + a["location"].(string)
	}
	return out
}

// Series become apps with locations through match lists; a series that
// goes is unavailable, then forgotten after forget_after; one query a cycle.
func TestDiscoveryLifecycle(t *testing.T) {
	tm, q := discoveryMonitor(t)
	for _, a := range []string{"checkout", "search", "billing"} {
		tm.src.Set(a, StatusUp, 0)
	}
	q.set(nil,
		sample(1, "service", "cart", "region", "il"),
		sample(0, "service", "pay", "region", "de"),
		sample(1, "service", "pay", "region", "eu"),
		sample(1, "service", "x", "region", "mars"), // unmapped
		sample(1, "service", "y", "zone", "il"),     // no region: the template fails
		sample(1, "region", "il"),                   // no service: the template fails
	)
	from := tm.events.cursor()
	tm.scrape(t)
	want := map[string]string{
		"checkout": "up@Tel Aviv", "search": "up@Tel Aviv", "billing": "up@Frankfurt",
		"cart-il": "up@Tel Aviv", "pay-de": "down@Frankfurt", "pay-eu": "up@Frankfurt",
	}
	if d := cmp.Diff(want, states(t, tm.h)); d != "" {
		t.Fatalf("after the first cycle (-want +got):\n%s", d)
	}
	if q.count() != 1 {
		t.Errorf("%d queries in one cycle, want 1", q.count())
	}
	if !tm.plan.batchRuns {
		t.Error("the plan with the apps found lost its batches' runs: every cycle copies their results")
	}
	evs, _, _, _ := tm.events.read(from, nil)
	if evs[0].Type != EventConfigUpdate || !cmp.Equal(evs[0].Change.AppsAdded, []string{"cart-il", "pay-de", "pay-eu"}) {
		t.Errorf("first event %+v, want config_update adding the three", evs[0])
	}
	m := metricsText(t, tm.h)
	for _, s := range []string{
		`availmon_discovery_apps{rule="services"} 3`,
		`availmon_discovery_series_skipped{reason="unmapped_location",rule="services"} 1`,
		`availmon_discovery_series_skipped{reason="name_template",rule="services"} 2`,
		`availmon_up{app="pay-de",location="Frankfurt"} 0`,
	} {
		if !strings.Contains(m, s) {
			t.Errorf("/metrics lacks %s", s)
		}
	}
	_, body := get(t, tm.h, "/api/apps/pay-eu")
	if d := body["data"].(map[string]any); d["prometheus_url"] != "http://prom:9090" || !strings.Contains(d["metric"].(string), `service="pay"`) {
		t.Errorf("discovered app: %v", d)
	}

	// pay-de's series goes: unavailable, no sample, kept.
	q.set(nil, sample(1, "service", "cart", "region", "il"), sample(1, "service", "pay", "region", "eu"))
	tm.clock.Advance(30 * time.Minute)
	tm.scrape(t)
	_, body = get(t, tm.h, "/api/apps/pay-de")
	if d := body["data"].(map[string]any); d["status"] != "unavailable" || d["error"] != "no sample" || len(d["history"].([]any)) != 2 {
		t.Errorf("a series that went: %v", d)
	}
	// Still within forget_after.
	tm.clock.Advance(29 * time.Minute)
	tm.scrape(t)
	if _, ok := states(t, tm.h)["pay-de"]; !ok {
		t.Error("pay-de forgotten before forget_after")
	}
	from = tm.events.cursor()
	tm.clock.Advance(time.Minute)
	tm.scrape(t)
	if _, ok := states(t, tm.h)["pay-de"]; ok {
		t.Error("pay-de still there after forget_after")
	}
	evs, _, _, _ = tm.events.read(from, nil)
	if len(evs) == 0 || evs[0].Change == nil || !cmp.Equal(evs[0].Change.AppsRemoved, []string{"pay-de"}) {
		t.Errorf("events when forgetting: %+v", evs)
	}
	if strings.Contains(metricsText(t, tm.h), `app="pay-de"`) {
		t.Error("/metrics still has the forgotten app")
	}
	// It comes back: a new app, unknown history.
	q.set(nil, sample(1, "service", "pay", "region", "de"))
	tm.clock.Advance(time.Minute)
	tm.scrape(t)
	_, body = get(t, tm.h, "/api/apps/pay-de")
	if d := body["data"].(map[string]any); d["status"] != "up" || len(d["history"].([]any)) != 1 {
		t.Errorf("a series that came back: %v", d)
	}
	if q.count() != 5 {
		t.Errorf("%d queries in 5 cycles", q.count())
	}
}

// A failing query makes the rule's apps unavailable with its error, marks
// its backend disconnected, and forgets nothing however long it lasts.
func TestDiscoveryQueryFails(t *testing.T) {
	tm, q := discoveryMonitor(t)
	q.set(nil, sample(1, "service", "cart", "region", "il"))
	tm.scrape(t)
	q.set(errors.New("prometheus prom: connection refused"))
	tm.clock.Advance(2 * time.Hour)
	tm.scrape(t)
	_, body := get(t, tm.h, "/api/apps/cart-il")
	if d := body["data"].(map[string]any); d["status"] != "unavailable" || !strings.Contains(d["error"].(string), "connection refused") {
		t.Errorf("app of a failing rule: %v", d)
	}
	if !strings.Contains(metricsText(t, tm.h), `availmon_backend_connected{backend="prom"} 0`) {
		t.Error("the rule's backend is not disconnected")
	}
	q.set(nil, sample(1, "service", "cart", "region", "il"))
	tm.scrape(t)
	if got := states(t, tm.h)["cart-il"]; got != "up@Tel Aviv" {
		t.Errorf("after recovery: %q", got)
	}
}

// max_apps bounds a rule: apps it holds keep their place, new names past
// the bound are ignored and counted; names taken by listed apps or earlier
// rules are skipped and counted.
func TestDiscoveryBoundsAndDuplicates(t *testing.T) {
	second := testRule
	second.Name, second.Query = "second", "svc_up > -1" // the same names from another query
	tm, q := discoveryMonitor(t, func(o *Options) {
		o.Discover[0].MaxApps = 2
		o.Discover = append(o.Discover, second)
	})
	q.set(nil,
		sample(1, "service", "b", "region", "il"),
		sample(1, "service", "c", "region", "il"),
		sample(1, "service", "a", "region", "il"),
	)
	tm.scrape(t)
	got := states(t, tm.h)
	// Rule one keeps a-il and b-il (name order); rule two's a-il and b-il
	// are duplicates; c-il is its own.
	for _, n := range []string{"a-il", "b-il", "c-il"} {
		if _, ok := got[n]; !ok {
			t.Errorf("%s missing: %v", n, got)
		}
	}
	if len(got) != 6 {
		t.Errorf("%d apps: %v", len(got), got)
	}
	m := metricsText(t, tm.h)
	for _, s := range []string{
		`availmon_discovery_series_skipped{reason="max_apps",rule="services"} 1`,
		`availmon_discovery_series_skipped{reason="duplicate",rule="second"} 2`,
	} {
		if !strings.Contains(m, s) {
			t.Errorf("/metrics lacks %s", s)
		}
	}
	// A series named like a listed app is skipped; the listed app stays.
	tm.src.Set("checkout", StatusDown, 0)
	q.set(nil, sample(1, "service", "checkout", "region", "il"))
	second.AppName = "{{ .service }}"
	o := Options{
		Locations: []Location{{Name: "Tel Aviv", Match: []string{"il"}}},
		Apps:      []App{{Name: "checkout", Location: "Tel Aviv", Backend: "main"}},
		Backends:  []Backend{{Name: "main", Source: tm.src}, {Name: "prom", Source: q}},
		Discover:  []DiscoveryRule{second},
	}
	if _, err := tm.Reconfigure(o); err != nil {
		t.Fatal(err)
	}
	tm.scrape(t)
	if d := cmp.Diff(map[string]string{"checkout": "down@Tel Aviv"}, states(t, tm.h)); d != "" {
		t.Errorf("a discovered name taken by a listed app (-want +got):\n%s", d)
	}
}

// Rules are validated with the rest of the options; clashes that can be
// seen without a query are errors.
func TestDiscoveryValidation(t *testing.T) {
	tests := []struct {
		name   string
		change func(o *Options)
		want   string
	}{
		{"unknown backend", func(o *Options) { o.Discover[0].Backend = "nope" }, `unknown backend "nope"`},
		{"backend cannot query", func(o *Options) { o.Discover[0].Backend = "main" }, `backend "main" cannot run queries`},
		{"no query", func(o *Options) { o.Discover[0].Query = " " }, "has no query"},
		{"bad template", func(o *Options) { o.Discover[0].AppName = "{{ .x" }, "app name template"},
		{"no template", func(o *Options) { o.Discover[0].AppName = "" }, "no app name template"},
		{"bad label", func(o *Options) { o.Discover[0].LocationLabel = "" }, "is not a label name"},
		{"negative", func(o *Options) { o.Discover[0].MaxApps = -1 }, "must not be negative"},
		{"twice", func(o *Options) { o.Discover = append(o.Discover, o.Discover[0]) }, "is listed twice"},
		{"constant name of a listed app", func(o *Options) { o.Discover[0].AppName = "checkout" }, `named "checkout", which is a listed app`},
		{"two constant names", func(o *Options) {
			r := o.Discover[0]
			r.Name, r.Query = "other", "up"
			o.Discover[0].AppName, r.AppName = "same", "same"
			o.Discover = append(o.Discover, r)
		}, `as are those of rule "services"`},
		{"same query and names", func(o *Options) {
			r := o.Discover[0]
			r.Name = "copy"
			o.Discover = append(o.Discover, r)
		}, `make the same apps from the same query`},
		{"match in two locations", func(o *Options) { o.Locations[1].Match = append(o.Locations[1].Match, "il") }, `"il" is also matched`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := &fakeQuerier{fakeSource: *newFakeSource()}
			o := Options{
				Locations: []Location{{Name: "Tel Aviv", Match: []string{"il"}}, {Name: "Frankfurt", Match: []string{"de"}}},
				Apps:      []App{{Name: "checkout", Location: "Tel Aviv", Backend: "main"}},
				Backends:  []Backend{{Name: "main", Source: newFakeSource()}, {Name: "prom", Source: q}},
				Discover:  []DiscoveryRule{testRule},
			}
			tc.change(&o)
			_, err := New(o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// A reconfiguration that keeps a rule keeps its apps (no gap, no event for
// them); one that changes it starts it afresh.
func TestDiscoveryAcrossReconfigure(t *testing.T) {
	tm, q := discoveryMonitor(t)
	q.set(nil, sample(1, "service", "cart", "region", "il"))
	tm.scrape(t)
	tm.scrape(t)
	opts := func(r DiscoveryRule) Options {
		return Options{
			Locations: []Location{{Name: "Tel Aviv", Match: []string{"il"}}},
			Apps:      []App{{Name: "checkout", Location: "Tel Aviv", Backend: "main"}},
			Backends:  []Backend{{Name: "main", Source: tm.src}, {Name: "prom", Source: q}},
			Discover:  []DiscoveryRule{r},
		}
	}
	ch, err := tm.Reconfigure(opts(testRule))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ch.AppsRemoved, "cart-il") || slices.Contains(ch.AppsAdded, "cart-il") {
		t.Errorf("a kept rule's app moved in or out: %+v", ch)
	}
	_, body := get(t, tm.h, "/api/apps/cart-il")
	if d := body["data"].(map[string]any); d["status"] != "up" || len(d["history"].([]any)) != 2 {
		t.Errorf("kept rule's app after Reconfigure: %v", d)
	}
	changed := testRule
	changed.AppName = "{{ .service }}"
	if ch, err = tm.Reconfigure(opts(changed)); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(ch.AppsRemoved, []string{"cart-il"}) {
		t.Errorf("changing the rule: %+v", ch)
	}
	tm.scrape(t)
	if got := states(t, tm.h)["cart"]; got != "up@Tel Aviv" {
		t.Errorf("the changed rule's app: %q", got)
	}
	// Removing the rule removes its apps and its metrics.
	o := opts(changed)
	o.Discover = nil
	if _, err := tm.Reconfigure(o); err != nil {
		t.Fatal(err)
	}
	if m := metricsText(t, tm.h); strings.Contains(m, `rule="services"`) || strings.Contains(m, `app="cart"`) {
		t.Errorf("/metrics after removing the rule:\n%s", m)
	}
}

// The state store keeps the history of discovered apps across a restart:
// the saved state waits for the rule to find the app again.
func TestDiscoveryRestoredAcrossRestart(t *testing.T) {
	clock := newFakeClock(t0)
	st := &memStore{}
	withStore := func(o *Options) { o.Store, o.Clock = st, clock }
	before, q := discoveryMonitor(t, withStore)
	before.clock = clock
	q.set(nil, sample(1, "service", "cart", "region", "il"), sample(0, "service", "gone", "region", "il"))
	for range 3 {
		before.scrape(t)
		clock.Advance(time.Minute)
	}
	if err := before.save(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantHist := dataOf(t, before, "/api/apps/cart-il").(map[string]any)["history"].([]any)

	after, q2 := discoveryMonitor(t, withStore)
	after.clock = clock
	if _, ok := states(t, after.h)["cart-il"]; ok {
		t.Fatal("a discovered app is listed before its rule found it")
	}
	q2.set(nil, sample(1, "service", "cart", "region", "il"))
	after.scrape(t)
	d := dataOf(t, after, "/api/apps/cart-il").(map[string]any)
	hist := d["history"].([]any)
	if len(hist) != len(wantHist)+1 || !cmp.Equal(wantHist, hist[:len(wantHist)]) {
		t.Errorf("history after the restart: %d entries, want the %d saved and one more", len(hist), len(wantHist))
	}
	_, body := get(t, after.h, "/api/metrics/summary")
	for _, a := range body["data"].(map[string]any)["apps_summary"].([]any) {
		if a := a.(map[string]any); a["name"] == "cart-il" && a["uptime_24h"] != 100.0 {
			t.Errorf("cart-il's 24h counters after the restart: %v", a)
		}
	}
	if after.disc.awaiting != nil {
		t.Errorf("apps no rule found are still awaited after a full answer: %v", after.disc.awaiting)
	}
	// gone does not come back later with its old history.
	q2.set(nil, sample(1, "service", "cart", "region", "il"), sample(1, "service", "gone", "region", "il"))
	after.scrape(t)
	if h := dataOf(t, after, "/api/apps/gone-il").(map[string]any)["history"].([]any); len(h) != 1 {
		t.Errorf("gone-il came back with %d history entries, want a fresh start", len(h))
	}
}
