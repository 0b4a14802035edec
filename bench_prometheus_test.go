package availmon_test

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
)

// The figures of issues 4 and 12: 10,000 apps on one backend, against a
// real Prometheus. A cycle must make at most 5 backend requests (asserted by
// TestPrometheus10kApps) and take under 2s (reported by
// BenchmarkPrometheusCycle10k; run it without -race).

const (
	manyApps       = 10_000
	maxRequests10k = 5 // issue 12: the 10,000 selectors fuse into a few queries
)

// wantState is what app i is: every 7th down, every 11th without a series
// (unavailable), the rest up.
func wantState(i int) string {
	switch {
	case i%11 == 0:
		return "unavailable"
	case i%7 == 0:
		return "down"
	default:
		return "up"
	}
}

// setup10k serves manyApps series, scraped by a real Prometheus, and
// returns a Monitor of manyApps apps on it, with the transport that counts
// its requests. The series are fixed text, so that serving them every
// second costs this process (whose CPU the benchmark reports) next to
// nothing.
func setup10k(tb testing.TB) (*availmon.Monitor, *availtest.CountingTransport, *promtest.Server) {
	return setupFleet(tb, manyApps, func(i int) string { return fmt.Sprintf(`demo_up{app="%s"}`, availtest.FmtApp(i)) })
}

// setupFleet is setup10k for n apps, app i's expression metric(i).
func setupFleet(tb testing.TB, n int, metric func(i int) string) (*availmon.Monitor, *availtest.CountingTransport, *promtest.Server) {
	tb.Helper()
	var text strings.Builder
	fmt.Fprintf(&text, "# TYPE %s gauge\n", promtest.ExporterMetric)
	series := 0
	for i := range n {
		switch wantState(i) {
		case "up":
			fmt.Fprintf(&text, "%s{app=%q} 1\n", promtest.ExporterMetric, availtest.FmtApp(i))
			series++
		case "down":
			fmt.Fprintf(&text, "%s{app=%q} 0\n", promtest.ExporterMetric, availtest.FmtApp(i))
			series++
		}
	}
	exp := promtest.NewStaticTarget(tb, text.String())
	prom := promtest.Start(tb, promtest.Job("demo", exp.Target()))
	backend, ct := availtest.PromBackend(tb, "main", prom)
	locs := []availmon.Location{{Name: "north", Latitude: 60}, {Name: "south", Latitude: -30}, {Name: "east", Longitude: 90}}
	apps := make([]availmon.App, n)
	for i := range apps {
		apps[i] = availmon.App{
			Name:     availtest.FmtApp(i),
			Location: locs[i%len(locs)].Name,
			Metric:   metric(i),
		}
	}
	// A generous cycle timeout: the test checks states and request
	// counts, and a machine loaded with other tests (or -race) can take
	// longer than the default 10s; the benchmark reports the real time.
	m := availtest.NewMonitor(tb, availmon.Options{Locations: locs, Apps: apps, Backends: []availmon.Backend{backend},
		Interval: time.Hour, Timeout: 2 * time.Minute})
	prom.WaitForQuery(tb, `count(demo_up)`, promtest.SampleEquals(float64(series)))
	return m, ct, prom
}

func TestPrometheus10kApps(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 apps against a real Prometheus; not in -short")
	}
	t.Parallel()
	m, ct, _ := setup10k(t)
	api := availtest.ServeAPI(t, m)
	want := make(map[string]string, manyApps)
	for i := range manyApps {
		want[availtest.FmtApp(i)] = wantState(i)
	}
	for cycle := 1; cycle <= 2; cycle++ {
		before := ct.Requests.Load()
		start := time.Now()
		availtest.Scrape(t, m)
		took := time.Since(start)
		requests := ct.Requests.Load() - before
		t.Logf("cycle %d: %d requests, %s", cycle, requests, took)
		if requests > maxRequests10k {
			t.Errorf("cycle %d made %d backend requests for %d apps, want at most %d", cycle, requests, manyApps, maxRequests10k)
		}
		if diff := cmp.Diff(want, api.AppStates()); diff != "" {
			t.Errorf("cycle %d: states (-want +got):\n%s", cycle, diff)
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPrometheusCycle10k measures one check cycle of 10,000 apps on one
// real Prometheus: ns/op is the cycle's wall time, requests/cycle the
// backend requests, cpu-ns/cycle the CPU time availmon's process (this test
// binary) spent per cycle, and prom-cpu-ns/cycle Prometheus's.
func BenchmarkPrometheusCycle10k(b *testing.B) {
	m, ct, prom := setup10k(b)
	benchCycles(b, m, ct, prom)
}

// Fleets for the figures of issue 12: 50,000 fused apps; 10,000 of which
// half fuse and half cannot (an aggregation drops the label); that
// unfusable half alone, to compare with the batching before fusion.
func BenchmarkPrometheusCycle(b *testing.B) {
	fused := func(i int) string { return fmt.Sprintf(`demo_up{app="%s"}`, availtest.FmtApp(i)) }
	unfusable := func(i int) string { return fmt.Sprintf(`max(demo_up{app="%s"})`, availtest.FmtApp(i)) }
	for _, f := range []struct {
		name   string
		n      int
		metric func(int) string
	}{
		{"50k-fused", 50_000, fused},
		{"10k-mixed", 10_000, func(i int) string {
			if i%2 == 0 {
				return fused(i)
			}
			return unfusable(i)
		}},
		{"5k-unfusable", 5_000, unfusable},
	} {
		b.Run(f.name, func(b *testing.B) {
			m, ct, prom := setupFleet(b, f.n, f.metric)
			benchCycles(b, m, ct, prom)
		})
	}
}

func benchCycles(b *testing.B, m *availmon.Monitor, ct *availtest.CountingTransport, prom *promtest.Server) {
	availtest.Scrape(b, m) // a first cycle opens the connections
	before := ct.Requests.Load()
	cpu := cpuTime()
	promCPU, err := prom.CPUTime()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		availtest.Scrape(b, m)
	}
	promCPUAfter, err := prom.CPUTime()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(ct.Requests.Load()-before)/float64(b.N), "requests/cycle")
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/cycle")
	b.ReportMetric(float64(promCPUAfter-promCPU)/float64(b.N), "prom-cpu-ns/cycle")
}
