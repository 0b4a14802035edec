package availmon_test

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
	"github.com/availmon/availmon/promsource"
)

// The state rules give the same answers on every server that speaks the
// Prometheus query API: the same suite runs against a real Prometheus and a
// real VictoriaMetrics.
func TestStatesOnEveryBackend(t *testing.T) {
	for _, b := range []struct {
		name  string
		start func(testing.TB, ...promtest.Option) *promtest.Server
		// VictoriaMetrics refuses queries over 16 KiB by default.
		maxQueryLength int
	}{
		{"prometheus", promtest.Start, 0},
		{"victoria-metrics", promtest.StartVictoriaMetrics, 16 << 10},
	} {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			stateSuite(t, b.start, b.maxQueryLength)
		})
	}
}

// suiteFleet is the size of the fleet the bad expression hides in.
const suiteFleet = 300

func stateSuite(t *testing.T, start func(testing.TB, ...promtest.Option) *promtest.Server, maxQueryLength int) {
	exp := promtest.NewExporter(t)
	for app, v := range map[string]float64{"up": 1, "down": 0, "nan": math.NaN(), "rt": 0.25, "m1": 1, "m2": 1} {
		exp.Set(app, v)
	}
	for i := range suiteFleet {
		exp.Set(fleetApp(i), float64(i%7)) // every 7th down
	}
	srv := start(t, promtest.Job("demo", exp.Target()))
	ct := availtest.NewCountingTransport(t)
	posts := &postOnly{next: ct}
	src, err := promsource.New(promsource.Options{
		Name: "main", URL: srv.URL(), RoundTripper: posts, QueryTimeout: 10 * time.Second, MaxQueryLength: maxQueryLength,
	})
	if err != nil {
		t.Fatal(err)
	}
	type app struct {
		name, metric, rt string
		status           string
		rtSeconds        float64 // checked when rt is set
	}
	// Each rule twice: as a selector that fuses with the others, and as
	// an expression that cannot fuse and is combined with label_replace.
	cases := []app{
		{name: "up", metric: `demo_up{app="up"}`, status: "up"},
		{name: "up-unfused", metric: `max(demo_up{app="up"})`, status: "up"},
		{name: "down", metric: `demo_up{app="down"}`, status: "down"},
		{name: "down-unfused", metric: `max(demo_up{app="down"})`, status: "down"},
		// VictoriaMetrics keeps no NaN sample: "no sample" there, the
		// same state.
		{name: "nan", metric: `demo_up{app="nan"}`, status: "unavailable"},
		{name: "nan-unfused", metric: `max(demo_up{app="nan"})`, status: "unavailable"},
		{name: "no-sample", metric: `demo_up{app="none"}`, status: "unavailable"},
		{name: "no-sample-unfused", metric: `max(demo_up{app="none"})`, status: "unavailable"},
		{name: "several", metric: `demo_up{app=~"m1|m2"}`, status: "up"},
		{name: "or-fused", metric: `demo_up{app="m1"} or demo_up{app="m1"} * 2`, status: "up"},
		{name: "scalar-1", metric: `1`, status: "up"},
		{name: "scalar-0", metric: `0`, status: "down"},
		{name: "scalar-fn", metric: `scalar(demo_up{app="down"})`, status: "down"},
		{name: "bool", metric: `sum(demo_up{app=~"m.*"}) > bool 1`, status: "up"},
		{name: "bool-fused", metric: `demo_up{app="down"} > bool 0`, status: "down"},
		{name: "or-vector", metric: `demo_up{app="none"} or vector(0)`, status: "down"},
		{name: "or-vector-up", metric: `sum(demo_up{app="up"}) or vector(0)`, status: "up"},
		{name: "rt-fused", metric: `demo_up{app="up"}`, rt: `demo_up{app="rt"}`, status: "up", rtSeconds: 0.25},
		{name: "rt-unfused", metric: `max(demo_up{app="up"})`, rt: `max(demo_up{app="rt"}) * 2`, status: "up", rtSeconds: 0.5},
		{name: "rt-scalar", metric: `demo_up{app="down"}`, rt: `0.125`, status: "down", rtSeconds: 0.125},
	}
	apps := make([]availmon.App, 0, len(cases)+suiteFleet)
	want := make(map[string]string)
	for _, c := range cases {
		apps = append(apps, availmon.App{Name: c.name, Location: "Tel Aviv", Metric: c.metric, ResponseTimeMetric: c.rt})
		want[c.name] = c.status
	}
	// A fleet of fused apps, one of which the server cannot evaluate.
	const bad = 137
	for i := range suiteFleet {
		a := availmon.App{Name: fleetApp(i), Location: "Frankfurt", Metric: fmt.Sprintf(`demo_up{app=%q}`, fleetApp(i))}
		want[a.Name] = map[bool]string{true: "down", false: "up"}[i%7 == 0]
		if i == bad {
			a.Metric = `label_replace(demo_up, "x", "$1", "app", "(")`
			want[a.Name] = "unavailable"
		}
		apps = append(apps, a)
	}
	m := availtest.NewMonitor(t, availmon.Options{Locations: availtest.TwoLocations, Apps: apps,
		Backends: []availmon.Backend{{Name: "main", URL: srv.URL(), Source: src, BatchSize: promsource.BatchSize}}})
	api := availtest.ServeAPI(t, m)
	// One scrape brings every series; "down" and the fleet's every 7th are 0.
	srv.WaitForQuery(t, `count(demo_up == 0)`, promtest.SampleEquals(float64(1+(suiteFleet+6)/7)))

	for cycle := 1; cycle <= 2; cycle++ {
		before := ct.Requests.Load()
		availtest.Scrape(t, m)
		requests := ct.Requests.Load() - before
		t.Logf("cycle %d: %d requests for %d apps", cycle, requests, len(apps))
		if diff := cmp.Diff(want, api.AppStates()); diff != "" {
			t.Errorf("cycle %d: states (-want +got):\n%s", cycle, diff)
			t.Logf("up: %+v", api.App("up"))
		}
		for _, c := range cases {
			if c.rt == "" {
				continue
			}
			if got := api.App(c.name).ResponseTime; got == nil || *got != c.rtSeconds {
				t.Errorf("cycle %d: %s response_time = %v, want %v", cycle, c.name, got, c.rtSeconds)
			}
		}
		if e := api.App(fleetApp(bad)).Error; e == "" || strings.Contains(e, "availmon_term") {
			t.Errorf("cycle %d: the bad app's error %q, want the server's own", cycle, e)
		}
		if cycle == 2 && requests > 12 {
			t.Errorf("cycle %d made %d requests, want the fused fleet in few", cycle, requests)
		}
	}

	if n := posts.others.Load(); n > 0 {
		t.Errorf("%d queries were not POSTed", n)
	}

	// One of several goes down: the app follows.
	exp.Set("m2", 0)
	srv.WaitForQuery(t, `demo_up{app="m2"}`, promtest.SampleEquals(0))
	availtest.Scrape(t, m)
	want["several"], want["bool"] = "down", "down"
	if diff := cmp.Diff(want, api.AppStates()); diff != "" {
		t.Errorf("m2 down: states (-want +got):\n%s", diff)
	}
}

func fleetApp(i int) string { return fmt.Sprintf("fleet-%03d", i) }

// postOnly counts the queries not sent with POST: a fused selector of
// thousands of names must not travel in a URL.
type postOnly struct {
	next   http.RoundTripper
	others atomic.Int64
}

func (p *postOnly) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/api/v1/query") && r.Method != http.MethodPost {
		p.others.Add(1)
	}
	return p.next.RoundTrip(r)
}
