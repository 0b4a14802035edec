package availmon

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/availmon/availmon/internal/memstore"
)

// The per-request cost of the answers go run ./bench compares with a static
// server of the same bytes: /health, a 304 and a gzip answer, each through
// the whole handler (request ID, request counting, recovery, routing).

// serveBench asks h for target with header on every iteration, with a
// fresh header map each time as net/http gives a handler, and checks the
// status.
func serveBench(b *testing.B, h http.Handler, target string, header http.Header, want int) {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		w.n = 0
		h.ServeHTTP(w, req)
	}
	if w.code != want {
		b.Fatalf("GET %s: status %d, want %d", target, w.code, want)
	}
	b.ReportMetric(float64(w.n), "bytes/resp")
}

func BenchmarkHealth(b *testing.B) {
	tm := newTestMonitor(b)
	tm.startRun(b) // /health answers 200 only while Run runs
	serveBench(b, tm.h, "/health", nil, http.StatusOK)
}

// etagOf is the tag of target's plain answer now.
func etagOf(tb testing.TB, h http.Handler, target string) string {
	tb.Helper()
	w := &discardWriter{h: http.Header{}}
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
	if w.code != http.StatusOK || w.h.Get("ETag") == "" {
		tb.Fatalf("GET %s: status %d, ETag %q", target, w.code, w.h.Get("ETag"))
	}
	return w.h.Get("ETag")
}

// BenchmarkLocationsNotModified is a poller of /api/locations that has
// the current answer, at 10,000 apps.
func BenchmarkLocationsNotModified(b *testing.B) {
	m, _ := largeMonitor(b, 10_000, 100, 2)
	h := m.Handler()
	tag := etagOf(b, h, "/api/locations")
	serveBench(b, h, "/api/locations", http.Header{"If-None-Match": {tag}}, http.StatusNotModified)
}

// BenchmarkAppsGzip is /api/apps with gzip at 10,000 apps, within one
// snapshot.
func BenchmarkAppsGzip(b *testing.B) {
	m, _ := largeMonitor(b, 10_000, 100, 2)
	serveBench(b, m.Handler(), "/api/apps", http.Header{"Accept-Encoding": {"gzip"}}, http.StatusOK)
}

// BenchmarkAppsGzipSnapshot is a cycle of 10,000 apps followed by the
// first gzip request of its snapshot: what a cycle costs the gzip
// answer of /api/apps (BenchmarkCycle is the cycle alone).
func BenchmarkAppsGzipSnapshot(b *testing.B) {
	benchAfterCycle(b, "/api/apps", http.Header{"Accept-Encoding": {"gzip"}}, http.StatusOK)
}

// BenchmarkAppsPlainSnapshot is BenchmarkAppsGzipSnapshot for a client
// that does not ask for gzip.
func BenchmarkAppsPlainSnapshot(b *testing.B) {
	benchAfterCycle(b, "/api/apps", nil, http.StatusOK)
}

func benchAfterCycle(b *testing.B, target string, header http.Header, want int) {
	m, clock := largeMonitor(b, 10_000, 100, 2)
	h := m.Handler()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clock.Advance(time.Minute)
		if err := m.Scrape(context.Background()); err != nil {
			b.Fatal(err)
		}
		clear(w.h)
		h.ServeHTTP(w, req)
	}
	if w.code != want {
		b.Fatalf("GET %s: status %d, want %d", target, w.code, want)
	}
}

// BenchmarkMetricsGzip is a scrape of /metrics with gzip at 10,000 apps
// from the binary's registry (Go and process collectors), one at a time:
// every scrape gathers the live families afresh.
func BenchmarkMetricsGzip(b *testing.B) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m, _ := largeMonitorWith(b, 10_000, 100, 2, func(o *Options) { o.Gatherer = reg })
	serveBench(b, m.Handler(), "/metrics", http.Header{"Accept-Encoding": {"gzip"}}, http.StatusOK)
}

// BenchmarkStatus is a poll of /api/status of a monitor with a store,
// whose answer carries the storage member as the binary's does.
func BenchmarkStatus(b *testing.B) {
	tm := newTestMonitor(b, func(o *Options) { o.Store = memstore.New(nil) })
	tm.startRun(b)
	serveBench(b, tm.h, "/api/status", nil, http.StatusOK)
}
