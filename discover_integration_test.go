package availmon_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
)

// A target whose series come and go, through a real Prometheus: apps appear
// with their states, turn unavailable ("no sample") when their series goes,
// are forgotten after forget_after, and each cycle is one request.
func TestDiscoveryPrometheusComeAndGo(t *testing.T) {
	t.Parallel()
	exp := promtest.NewExporter(t)
	exp.Set("cart", 1)
	exp.Set("search", 0)
	exp.Set("billing", 1)
	prom := promtest.Start(t, promtest.Job("demo", exp.Target()))
	backend, ct := availtest.PromBackend(t, "main", prom)
	clock := availmontest.NewClock(time.Now()) // for forget_after on schedule
	m := availtest.NewMonitor(t, availmon.Options{
		Locations: []availmon.Location{{Name: "Demo land", Latitude: 1, Longitude: 2, Match: []string{"demo"}}},
		Backends:  []availmon.Backend{backend},
		Discover: []availmon.DiscoveryRule{{Name: "demo", Query: promtest.ExporterMetric, AppName: "svc-{{ .app }}",
			LocationLabel: "job", ForgetAfter: time.Hour}},
		Clock:   clock,
		Timeout: time.Minute,
	})
	api := availtest.ServeAPI(t, m)
	prom.WaitForQuery(t, promtest.ExporterMetric, promtest.SampleCount(3))

	cycle := func(want map[string]string) {
		t.Helper()
		before := ct.Requests.Load()
		availtest.Scrape(t, m)
		if n := ct.Requests.Load() - before; n != 1 {
			t.Errorf("a cycle made %d requests, want 1", n)
		}
		if d := cmp.Diff(want, api.AppStates()); d != "" {
			t.Errorf("apps (-want +got):\n%s", d)
		}
	}
	cycle(map[string]string{"svc-cart": "up", "svc-search": "down", "svc-billing": "up"})

	// billing's series goes (Prometheus marks it stale at its next scrape).
	exp.Delete("billing")
	prom.WaitForQuery(t, promtest.ExporterMetric, promtest.SampleCount(2))
	clock.Advance(time.Minute)
	cycle(map[string]string{"svc-cart": "up", "svc-search": "down", "svc-billing": "unavailable"})
	var d struct{ Data availtest.WireAppDetail }
	api.Get("/api/apps/svc-billing", &d)
	if d.Data.Error != "no sample" || len(d.Data.History) != 2 {
		t.Errorf("svc-billing: error %q, %d checks; want no sample and 2", d.Data.Error, len(d.Data.History))
	}
	clock.Advance(58 * time.Minute) // 59m without a sample: kept
	cycle(map[string]string{"svc-cart": "up", "svc-search": "down", "svc-billing": "unavailable"})
	clock.Advance(time.Minute) // 1h: forgotten
	cycle(map[string]string{"svc-cart": "up", "svc-search": "down"})

	// A new series is a new app.
	exp.Set("payments", 0)
	prom.WaitForQuery(t, promtest.ExporterMetric, promtest.SampleCount(3))
	clock.Advance(time.Minute)
	cycle(map[string]string{"svc-cart": "up", "svc-search": "down", "svc-payments": "down"})
	var loc struct{ Data availtest.WireLocation }
	api.Get("/api/locations/Demo%20land", &loc)
	if loc.Data.Summary.TotalApps != 3 || loc.Data.Summary.DownCount != 2 {
		t.Errorf("location summary: %+v", loc.Data.Summary)
	}
}

// discovery10k serves 10,000 series in three regions, scraped by a real
// Prometheus, and returns a Monitor whose one rule makes them apps.
func discovery10k(tb testing.TB) (*availmon.Monitor, *availtest.CountingTransport, *promtest.Server) {
	tb.Helper()
	var text strings.Builder
	fmt.Fprintf(&text, "# TYPE svc_up gauge\n")
	for i := range manyApps {
		v := 1
		if i%7 == 0 {
			v = 0
		}
		fmt.Fprintf(&text, "svc_up{service=%q,region=\"r%d\"} %d\n", availtest.FmtApp(i), i%3, v)
	}
	target := promtest.NewStaticTarget(tb, text.String())
	prom := promtest.Start(tb, promtest.Job("svc", target.Target()))
	backend, ct := availtest.PromBackend(tb, "main", prom)
	m := availtest.NewMonitor(tb, availmon.Options{
		Locations: []availmon.Location{
			{Name: "north", Latitude: 60, Match: []string{"r0"}},
			{Name: "south", Latitude: -30, Match: []string{"r1"}},
			{Name: "east", Longitude: 90, Match: []string{"r2"}},
		},
		Backends: []availmon.Backend{backend},
		Discover: []availmon.DiscoveryRule{{Name: "svc", Query: "svc_up", AppName: "{{ .service }}", LocationLabel: "region"}},
		Timeout:  2 * time.Minute,
	})
	prom.WaitForQuery(tb, `count(svc_up)`, promtest.SampleEquals(manyApps))
	return m, ct, prom
}

// 10,000 discovered apps cost one request per cycle.
func TestDiscovery10kOneRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 series through a real Prometheus; not in -short")
	}
	t.Parallel()
	m, ct, _ := discovery10k(t)
	api := availtest.ServeAPI(t, m)
	for cycle := 1; cycle <= 2; cycle++ {
		before := ct.Requests.Load()
		start := time.Now()
		availtest.Scrape(t, m)
		t.Logf("cycle %d: %d requests, %s", cycle, ct.Requests.Load()-before, time.Since(start))
		if n := ct.Requests.Load() - before; n != 1 {
			t.Errorf("cycle %d: %d requests for %d discovered apps, want 1", cycle, n, manyApps)
		}
		states := api.AppStates()
		if len(states) != manyApps {
			t.Fatalf("cycle %d: %d apps, want %d", cycle, len(states), manyApps)
		}
		for i := range manyApps {
			want := "up"
			if i%7 == 0 {
				want = "down"
			}
			if got := states[availtest.FmtApp(i)]; got != want {
				t.Fatalf("cycle %d: %s is %q, want %q", cycle, availtest.FmtApp(i), got, want)
			}
		}
	}
	var loc struct{ Data availtest.WireLocation }
	api.Get("/api/locations/south", &loc)
	if loc.Data.Summary.TotalApps != manyApps/3 {
		t.Errorf("south has %d apps, want %d", loc.Data.Summary.TotalApps, manyApps/3)
	}
}

// BenchmarkDiscoveryCycle10k: one cycle of a rule yielding 10,000 apps from
// a real Prometheus. ns/op is the cycle's wall time; requests/cycle the
// backend requests; cpu-ns/cycle availmon's CPU (this process) per cycle.
func BenchmarkDiscoveryCycle10k(b *testing.B) {
	m, ct, prom := discovery10k(b)
	benchCycles(b, m, ct, prom) // its first cycle adds the apps
}
