package availmon

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
)

// benchSource answers for a batch without locks, as a batched backend
// would: every seventh app is down, every thirteenth unavailable.
type benchSource struct{}

func (benchSource) Check(ctx context.Context, apps []App) ([]Result, error) {
	out := make([]Result, len(apps))
	for i, a := range apps {
		n := len(a.Name) + int(a.Name[len(a.Name)-1]) + int(a.Name[len(a.Name)-2])
		switch {
		case n%13 == 0:
			out[i] = Result{Status: StatusUnavailable}
		case n%7 == 0:
			out[i] = Result{Status: StatusDown, ResponseTime: 40 * time.Millisecond}
		default:
			out[i] = Result{Status: StatusUp, ResponseTime: 25 * time.Millisecond}
		}
	}
	return out, nil
}

// largeMonitor has apps apps spread evenly over locs locations, checked in
// batches of 100, after cycles cycles a minute apart.
func largeMonitor(tb testing.TB, apps, locs, cycles int) (*Monitor, *fakeClock) {
	tb.Helper()
	return largeMonitorWith(tb, apps, locs, cycles)
}

func largeMonitorWith(tb testing.TB, apps, locs, cycles int, opts ...func(*Options)) (*Monitor, *fakeClock) {
	tb.Helper()
	clock := newFakeClock(t0)
	o := Options{
		Backends: []Backend{{Name: "main", URL: testPromURL, Source: benchSource{}, BatchSize: 100}},
		Clock:    clock,
	}
	for l := range locs {
		o.Locations = append(o.Locations, Location{Name: fmt.Sprintf("location-%03d", l), Latitude: float64(l%180 - 90), Longitude: float64(l%360 - 180)})
	}
	for a := range apps {
		o.Apps = append(o.Apps, App{Name: fmt.Sprintf("app-%05d", a), Location: o.Locations[a%locs].Name,
			Metric: fmt.Sprintf(`up{job="app-%05d"}`, a)})
	}
	for _, f := range opts {
		f(&o)
	}
	m, err := New(o)
	if err != nil {
		tb.Fatal(err)
	}
	for range cycles {
		if err := m.Scrape(context.Background()); err != nil {
			tb.Fatal(err)
		}
		clock.Advance(time.Minute)
	}
	return m, clock
}

// discardWriter is a ResponseWriter that keeps nothing, so a benchmark
// measures the handler and not a recorder's buffer.
type discardWriter struct {
	h    http.Header
	code int
	n    int
}

func (w *discardWriter) Header() http.Header  { return w.h }
func (w *discardWriter) WriteHeader(code int) { w.code = code }
func (w *discardWriter) Write(b []byte) (int, error) {
	w.n += len(b)
	return len(b), nil
}

func benchGet(b *testing.B, target string) {
	m, _ := largeMonitor(b, 10_000, 100, 10)
	benchHandler(b, m.Handler(), target)
}

func benchHandler(b *testing.B, h http.Handler, target string) {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	w := &discardWriter{h: http.Header{}}
	h.ServeHTTP(w, req) // the first request encodes the snapshot's JSON
	if w.code != http.StatusOK {
		b.Fatalf("GET %s: status %d", target, w.code)
	}
	size := w.n
	b.ReportAllocs()
	for b.Loop() {
		w.n = 0
		h.ServeHTTP(w, req)
	}
	// /metrics changes a little between scrapes: it counts its own requests.
	if w.code != http.StatusOK || (w.n != size && target != "/metrics") {
		b.Fatalf("GET %s: status %d, %d bytes (first %d)", target, w.code, w.n, size)
	}
	b.ReportMetric(float64(size), "bytes/resp")
}

func BenchmarkGetApps(b *testing.B)     { benchGet(b, "/api/apps") }
func BenchmarkGetStatus(b *testing.B)   { benchGet(b, "/api/status") }
func BenchmarkGetLocation(b *testing.B) { benchGet(b, "/api/locations/location-042") }
func BenchmarkGetApp(b *testing.B)      { benchGet(b, "/api/apps/app-04242") }

// BenchmarkGetMetrics is a Prometheus scrape of /metrics with 10,000 apps
// (gzip off, as the text exposition a scraper asks for without
// Accept-Encoding). Unlike /api/apps it is encoded anew on every scrape.
func BenchmarkGetMetrics(b *testing.B) { benchGet(b, "/metrics") }

func BenchmarkHistory24h5m(b *testing.B) {
	benchGet(b, "/api/status/history?period=24h&resolution=5m")
}

// BenchmarkCycle is one check cycle of 10,000 apps, snapshot included.
func BenchmarkCycle(b *testing.B) {
	m, clock := largeMonitor(b, 10_000, 100, 1)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		clock.Advance(time.Second)
		if err := m.Scrape(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeApps is what /api/apps costs once per snapshot: encoding
// every app. Requests after the first reuse the bytes (BenchmarkGetApps).
func BenchmarkEncodeApps(b *testing.B) {
	m, _ := largeMonitor(b, 10_000, 100, 1)
	cur := m.snap.Load()
	b.ReportAllocs()
	for b.Loop() {
		fresh := &snapshot{p: cur.p, at: cur.at, apps: cur.apps, errs: cur.errs}
		if fresh.appsData().Len() == 0 {
			b.Fatal("no JSON")
		}
	}
}

// BenchmarkGetMetricsProcess is /metrics as the binary serves it: with the
// Go and process collectors, gathered live on every scrape.
func BenchmarkGetMetricsProcess(b *testing.B) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m, _ := largeMonitorWith(b, 10_000, 100, 10, func(o *Options) { o.Gatherer = reg })
	benchHandler(b, m.Handler(), "/metrics")
}

// BenchmarkEncodeMetrics is what /metrics costs once per snapshot: the
// snapshot's families encoded for one format. Scrapes after the first
// reuse the bytes (BenchmarkGetMetrics). The exporter's view of the
// snapshot is made once, as the cycle makes it for every consumer.
func BenchmarkEncodeMetrics(b *testing.B) {
	m, _ := largeMonitor(b, 10_000, 100, 1)
	cur := m.snap.Load()
	prom := cur.promSnapshot()
	for _, c := range []struct {
		name string
		f    expfmt.Format
	}{{"text", expfmt.FmtText}, {"openmetrics", expfmt.FmtOpenMetrics_1_0_0}, {"protobuf", expfmt.FmtProtoDelim}} {
		f := c.f + "; escaping=underscores"
		b.Run(c.name, func(b *testing.B) {
			var last atomic.Int64
			b.ReportAllocs()
			for b.Loop() {
				body, err := encodeMetrics(m.exp, prom, f, &last)
				if err != nil || len(body.Head()) == 0 {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(last.Load()), "bytes/body")
		})
	}
}
