package availmon

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"
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
	h := m.Handler()
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

// bytesPerRequest is the heap allocated per request, once the snapshot's
// encodings are made.
func bytesPerRequest(t *testing.T, h http.Handler, target string) float64 {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	w := &discardWriter{h: http.Header{}}
	h.ServeHTTP(w, req)
	if w.code != http.StatusOK {
		t.Fatalf("GET %s: %d", target, w.code)
	}
	const n = 200
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		h.ServeHTTP(w, req)
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / n
}

// /api/status and /api/locations/{name} cost the same per request with 100
// apps as with 10,000 (the location has 100 apps both times): they read
// figures made once per snapshot instead of walking every app.
func TestStatusAndLocationNotPerApp(t *testing.T) {
	small, _ := largeMonitor(t, 100, 1, 2)
	large, _ := largeMonitor(t, 10_000, 100, 2)
	hs, hl := small.Handler(), large.Handler()
	for _, tt := range []struct{ small, large string }{
		{"/api/status", "/api/status"},
		{"/api/locations/location-000", "/api/locations/location-000"},
	} {
		s := bytesPerRequest(t, hs, tt.small)
		l := bytesPerRequest(t, hl, tt.large)
		allocS := testing.AllocsPerRun(100, func() {
			hs.ServeHTTP(&discardWriter{h: http.Header{}}, httptest.NewRequest(http.MethodGet, tt.small, nil))
		})
		allocL := testing.AllocsPerRun(100, func() {
			hl.ServeHTTP(&discardWriter{h: http.Header{}}, httptest.NewRequest(http.MethodGet, tt.large, nil))
		})
		t.Logf("%s: %.0f B and %.0f allocs per request with 100 apps, %.0f B and %.0f allocs with 10,000", tt.large, s, allocS, l, allocL)
		if l > 1.5*s+1024 || allocL > allocS+2 {
			t.Errorf("%s: %.0f B / %.0f allocs per request with 10,000 apps against %.0f B / %.0f allocs with 100: it grows with the app count",
				tt.large, l, allocL, s, allocS)
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
		fresh := &snapshot{p: cur.p, at: cur.at, apps: cur.apps}
		if len(fresh.appsData()) == 0 {
			b.Fatal("no JSON")
		}
	}
}
