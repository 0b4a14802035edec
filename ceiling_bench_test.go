package availmon

import (
	"context"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// BenchmarkCeiling is go run ./bench's endpoint table without its
// Prometheus: each endpoint through the whole handler over loopback HTTP,
// next to a plain server writing a precomputed copy of the same answer
// (the ceiling), both for the same wall time with cycles running as they
// do in the binary. Its "ratio" is availmon's requests per second over the
// ceiling's, the figure issue 29 bounds. Run it alone, once per size:
//
//	go test -run X -bench Ceiling -benchtime 1x -ceiling.apps 100000 .
var (
	ceilingApps  = flag.Int("ceiling.apps", 10_000, "apps of BenchmarkCeiling")
	ceilingDur   = flag.Duration("ceiling.d", 3*time.Second, "how long BenchmarkCeiling drives each server")
	ceilingCycle = flag.Duration("ceiling.interval", 2*time.Second, "wall time between BenchmarkCeiling's cycles")
	ceilingConns = flag.Int("ceiling.c", 32, "connections of BenchmarkCeiling")
)

// ceilingEndpoints are bench/run.go's endpoints that need no objectives
// or saved record.
var ceilingEndpoints = []struct {
	name, path string
	header     http.Header
}{
	{"health", "/health", nil},
	{"apps", "/api/apps", nil},
	{"locations", "/api/locations", nil},
	{"location", "/api/locations/location-042", nil},
	{"status", "/api/status", nil},
	{"history", "/api/status/history?period=30d&resolution=1h", nil},
	{"summary", "/api/metrics/summary", nil},
	{"availability", "/api/availability?window=90d&by=app", nil},
	{"metrics", "/metrics", nil},
	{"apps_gzip", "/api/apps", http.Header{"Accept-Encoding": {"gzip"}}},
	{"metrics_gzip", "/metrics", http.Header{"Accept-Encoding": {"gzip"}}},
	{"locations_304", "/api/locations", http.Header{"If-None-Match": {""}}},
}

func BenchmarkCeiling(b *testing.B) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m, clock := largeMonitorWith(b, *ceilingApps, 100, 2, func(o *Options) { o.Gatherer = reg })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}()
	// Run's cycles wait on the fake clock: a ticker of wall time moves it,
	// so cycles run during the load as the binary's do.
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(*ceilingCycle)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				clock.Advance(time.Minute)
			}
		}
	})
	defer wg.Wait()
	defer cancel()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	waitFor(b, "Run's first cycle", func() bool { return getStatus(srv.URL+"/health") == http.StatusOK })
	for _, ep := range ceilingEndpoints {
		b.Run(ep.name, func(b *testing.B) {
			header := ep.header.Clone()
			if _, ok := header["If-None-Match"]; ok {
				header.Set("If-None-Match", plainETag(b, srv.URL+ep.path))
			}
			static := httptest.NewServer(staticCopy(b, srv.URL+ep.path, header))
			defer static.Close()
			for b.Loop() {
				avail := driveLoad(b, srv.URL+ep.path, header)
				ceil := driveLoad(b, static.URL+ep.path, header)
				b.ReportMetric(avail, "availmon-req/s")
				b.ReportMetric(ceil, "ceiling-req/s")
				b.ReportMetric(avail/ceil, "ratio")
			}
		})
	}
}

func getStatus(url string) int {
	res, err := http.Get(url)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, res.Body) //nolint:errcheck
	res.Body.Close()
	return res.StatusCode
}

var plainTransport = &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 256}

// plainETag is the tag of url's plain answer now.
func plainETag(tb testing.TB, url string) string {
	res, _ := ceilingGet(tb, url, nil)
	return res.Header.Get("ETag")
}

func ceilingGet(tb testing.TB, url string, header http.Header) (*http.Response, []byte) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header = header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	res, err := plainTransport.RoundTrip(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return res, body
}

// staticCopy is bench/load.go's ceiling: url's answer now, written with no
// routing and no encoding.
func staticCopy(tb testing.TB, url string, header http.Header) http.Handler {
	res, body := ceilingGet(tb, url, header)
	status := res.StatusCode
	keep := http.Header{}
	for _, k := range []string{"Content-Type", "Content-Encoding", "ETag", "Vary", "Cache-Control"} {
		if v := res.Header.Get(k); v != "" {
			keep[k] = []string{v}
		}
	}
	if status != http.StatusNotModified {
		keep["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		for k, v := range keep {
			h[k] = v
		}
		w.WriteHeader(status)
		w.Write(body) //nolint:errcheck
	})
}

// driveLoad asks url from -ceiling.c connections for -ceiling.d and
// returns the answers a second. With If-None-Match, each connection
// sends the tag of the last answer it got, as bench's wrk script does.
func driveLoad(tb testing.TB, url string, header http.Header) float64 {
	var n atomic.Int64
	deadline := time.Now().Add(*ceilingDur)
	start := time.Now()
	var wg sync.WaitGroup
	for range *ceilingConns {
		wg.Go(func() {
			h := header.Clone()
			if h == nil {
				h = http.Header{}
			}
			for time.Now().Before(deadline) {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header = h
				res, err := plainTransport.RoundTrip(req)
				if err != nil {
					tb.Error(err)
					return
				}
				io.Copy(io.Discard, res.Body) //nolint:errcheck
				res.Body.Close()
				if res.StatusCode >= 400 {
					tb.Errorf("GET %s: status %d", url, res.StatusCode)
					return
				}
				if tag := res.Header.Get("ETag"); tag != "" && h.Get("If-None-Match") != "" {
					h = h.Clone()
					h.Set("If-None-Match", tag)
				}
				n.Add(1)
			}
		})
	}
	wg.Wait()
	return float64(n.Load()) / time.Since(start).Seconds()
}
