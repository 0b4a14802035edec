package availmon_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/common/model"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
)

// The round trip of issue 5: a real Prometheus scrapes the Monitor's
// /metrics, and PromQL over availmon_up and availmon_apps tells the same
// states as /api/apps and /api/status (up 1, down 0, unavailable absent).
func TestPrometheusRoundTrip(t *testing.T) {
	t.Parallel() // each test has its own Prometheus; most of their time is waiting for scrapes
	exp := promtest.NewExporter(t)
	for _, app := range []string{"a", "b", "c", "d"} {
		exp.Set(app, 1)
	}
	exp.Set("b", 0)

	// Prometheus's config names availmon's address, and the Monitor needs
	// Prometheus's URL: listen first, serve once the Monitor exists.
	self := httptest.NewUnstartedServer(nil)
	t.Cleanup(self.Close)

	prom := promtest.Start(t,
		promtest.Job("demo", exp.Target()),
		promtest.Job("availmon", self.Listener.Addr().String()))
	backend, _ := availtest.PromBackend(t, "main", prom)
	m := availtest.NewMonitor(t, availmon.Options{
		Locations: availtest.TwoLocations,
		Apps: []availmon.App{
			{Name: "a", Location: "Tel Aviv", Metric: `demo_up{app="a"}`},
			{Name: "b", Location: "Tel Aviv", Metric: `demo_up{app="b"}`},
			{Name: "c", Location: "Frankfurt", Metric: `demo_up{app="c"}`},
			{Name: "d", Location: "Frankfurt", Metric: `demo_up{app="d"}`},
			{Name: "gone", Location: "Frankfurt", Metric: `demo_up{app="gone"}`},
		},
		Backends: []availmon.Backend{backend},
	})
	self.Config.Handler = m.Handler()
	self.Start()
	api := availtest.NewAPI(t, self)
	prom.WaitForQuery(t, `demo_up`, promtest.SampleCount(4))

	// fromPromQL turns availmon_up into app -> state, with every app of
	// the monitor that has no series as unavailable, and checks that each
	// series carries its app's location.
	locs := map[string]string{"a": "Tel Aviv", "b": "Tel Aviv", "c": "Frankfurt", "d": "Frankfurt", "gone": "Frankfurt"}
	fromPromQL := func(v model.Value) map[string]string {
		out := make(map[string]string, len(locs))
		for app := range locs {
			out[app] = "unavailable"
		}
		for _, s := range v.(model.Vector) {
			app := string(s.Metric["app"])
			if string(s.Metric["location"]) != locs[app] {
				out[app] = "wrong location " + string(s.Metric["location"])
				continue
			}
			switch s.Value {
			case 1:
				out[app] = "up"
			case 0:
				out[app] = "down"
			default:
				out[app] = "value " + s.Value.String()
			}
		}
		return out
	}
	countsFromPromQL := func(v model.Value) map[string]int {
		out := make(map[string]int)
		for _, s := range v.(model.Vector) {
			out[string(s.Metric["status"])] = int(s.Value)
		}
		return out
	}
	roundTrip := func(step string) {
		t.Helper()
		availtest.Scrape(t, m)
		want := api.AppStates()
		st := api.Status()
		wantCounts := map[string]int{"up": st.ApplicationsUp, "down": st.ApplicationsDown, "unavailable": st.ApplicationsUnavailable}
		// Prometheus scrapes availmon every second: wait for the scrape
		// that follows this cycle.
		prom.WaitForQuery(t, `availmon_apps{job="availmon"}`, func(v model.Value) bool {
			return cmp.Equal(wantCounts, countsFromPromQL(v))
		})
		got := prom.WaitForQuery(t, `availmon_up{job="availmon"}`, func(v model.Value) bool {
			return cmp.Equal(want, fromPromQL(v))
		})
		if diff := cmp.Diff(want, fromPromQL(got)); diff != "" {
			t.Errorf("%s: availmon_up vs /api/apps (-api +promql):\n%s", step, diff)
		}
		t.Logf("%s: %v", step, want)
	}

	roundTrip("first cycle")
	if got := api.AppStates(); got["a"] != "up" || got["b"] != "down" || got["gone"] != "unavailable" {
		t.Fatalf("states after the first cycle = %v, want a up, b down, gone unavailable", got)
	}

	// Flip: a goes down, b comes up, c goes away, gone comes.
	exp.Set("a", 0)
	exp.Set("b", 1)
	exp.Delete("c")
	exp.Set("gone", 1)
	prom.WaitForQuery(t, `demo_up{app=~"a|b|c|gone"}`, func(v model.Value) bool {
		vals := map[string]float64{}
		for _, s := range v.(model.Vector) {
			vals[string(s.Metric["app"])] = float64(s.Value)
		}
		return cmp.Equal(map[string]float64{"a": 0, "b": 1, "gone": 1}, vals)
	})
	roundTrip("after the flip")
	want := map[string]string{"a": "down", "b": "up", "c": "unavailable", "d": "up", "gone": "up"}
	if diff := cmp.Diff(want, api.AppStates()); diff != "" {
		t.Errorf("states after the flip (-want +got):\n%s", diff)
	}

	// The operator families are there too, as Prometheus stored them.
	for _, q := range []string{
		`availmon_backend_connected{backend="main"} == 1`,
		`availmon_scrape_duration_seconds_count{target="main"} > 0`,
		`availmon_last_cycle_timestamp_seconds > 0`,
		`availmon_location_availability_ratio{location="Tel Aviv"} == 0.5`,
	} {
		v, err := prom.Query(context.Background(), q)
		if err != nil || len(v.(model.Vector)) != 1 {
			t.Errorf("%s: got %v, %v; want one sample", q, v, err)
		}
	}
}
