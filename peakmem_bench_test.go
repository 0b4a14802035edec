package availmon

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/availmon/availmon/internal/gcpace"
)

// peakOrder is go run ./bench's order of the endpoints (bench/run.go), by
// ceilingEndpoints' names: what one endpoint leaves behind (a report kept
// across snapshots) is there while the next ones are driven.
var peakOrder = []string{"health", "apps", "locations", "location", "status", "history", "summary",
	"availability", "metrics", "objectives", "report", "report_csv", "apps_gzip", "metrics_gzip",
	"objectives_gzip", "locations_304"}

// BenchmarkPeakMemory is go run ./bench's peak under load in this
// process: a monitor of -ceiling.apps apps, paced as the binary paces its
// collector (gcpace), runs cycles every -ceiling.interval while each
// endpoint -ceiling.only selects is driven in turn by -ceiling.c
// connections for -ceiling.d. It reports, per endpoint, the largest
// resident memory (VmRSS, sampled every 10 ms) and heap (objects, free
// and unused slots not returned to the system) while it is driven, and
// the live heap after; and logs (-v) the peak resident memory over the
// idle one before the load. Run with -benchtime 1x under the bench lock: it
// loads both cores for a minute or more at 100,000 apps:
//
//	go test -run X -bench PeakMemory -benchtime 1x -v -ceiling.apps 100000 -ceiling.d 4s .
func BenchmarkPeakMemory(b *testing.B) {
	debug.SetGCPercent(gcpace.Default)
	defer debug.SetGCPercent(100)
	defer debug.SetMemoryLimit(-1)
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m, clock := largeMonitorWith(b, *ceilingApps, 100, 2, func(o *Options) {
		o.Gatherer = reg
		ceilingObjectives(b, o, *ceilingObjs)
	})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { gcpace.Pace(ctx, true) })
	wg.Go(func() { m.Run(ctx) }) //nolint:errcheck // ends with ctx
	wg.Go(func() { advanceEvery(ctx, clock, *ceilingCycle) })
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	waitFor(b, "Run's first cycle", func() bool { return getStatus(srv.URL+"/health") == http.StatusOK })
	steady := sampleMemory(b, 5**ceilingCycle)
	selected := map[string]bool{}
	for _, i := range ceilingRows(b) {
		selected[ceilingEndpoints[i].name] = true
	}
	var peak float64
	for _, name := range peakOrder {
		if !selected[name] {
			continue
		}
		ep := endpointNamed(name)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				header := ep.header.Clone()
				if _, ok := header["If-None-Match"]; ok {
					header.Set("If-None-Match", plainETag(b, srv.URL+ep.path))
				}
				stop := make(chan struct{})
				var s memSample
				var sampled sync.WaitGroup
				sampled.Go(func() { s = sampleUntil(b, stop) })
				driveLoad(b, srv.URL+ep.path, header, *ceilingDur)
				close(stop)
				sampled.Wait()
				peak = max(peak, s.rssMax)
				b.ReportMetric(s.rssMax/1e6, "MB-rss-max")
				b.ReportMetric(s.heapMax/1e6, "MB-heap-max")
				b.ReportMetric(float64(liveHeapBytes())/1e6, "MB-live-after")
			}
		})
	}
	b.Logf("resident memory: steady %.1f MB, peak under load %.1f MB (%.2fx)", steady.rssMean/1e6, peak/1e6, peak/steady.rssMean)
}

func endpointNamed(name string) (ep struct {
	name, path string
	header     http.Header
}) {
	for _, e := range ceilingEndpoints {
		if e.name == name {
			return e
		}
	}
	panic("no endpoint " + name)
}

// memSample is what sampleUntil saw.
type memSample struct {
	rssMean, rssMax, heapMax float64
}

// sampleMemory samples for d.
func sampleMemory(tb testing.TB, d time.Duration) memSample {
	stop := make(chan struct{})
	time.AfterFunc(d, func() { close(stop) })
	return sampleUntil(tb, stop)
}

// sampleUntil samples the resident memory and the heap every 10 ms until
// stop is closed.
func sampleUntil(tb testing.TB, stop <-chan struct{}) memSample {
	samples := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
	var s memSample
	var sum float64
	var n atomic.Int64
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			if k := n.Load(); k > 0 {
				s.rssMean = sum / float64(k)
			}
			return s
		case <-t.C:
		}
		rss := residentBytes(tb)
		metrics.Read(samples)
		var heap uint64
		for _, x := range samples {
			heap += x.Value.Uint64()
		}
		s.rssMax = max(s.rssMax, rss)
		s.heapMax = max(s.heapMax, float64(heap))
		sum += rss
		n.Add(1)
	}
}

// residentBytes is this process's VmRSS.
func residentBytes(tb testing.TB) float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		tb.Skip("no /proc/self/status:", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmRSS:")); ok {
			kb, err := strconv.ParseFloat(string(bytes.Fields(v)[0]), 64)
			if err != nil {
				tb.Fatal(err)
			}
			return kb * 1024
		}
	}
	tb.Fatal("no VmRSS in /proc/self/status")
	return 0
}
