package availmon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/availmon/availmon/objective"
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
	ceilingDur   = flag.Duration("ceiling.d", 6*time.Second, "how long BenchmarkCeiling drives each server (in whole seconds a turn with wrk)")
	ceilingCycle = flag.Duration("ceiling.interval", 2*time.Second, "wall time between BenchmarkCeiling's cycles")
	ceilingConns = flag.Int("ceiling.c", 64, "connections of BenchmarkCeiling")
	ceilingBusy  = flag.Duration("ceiling.spin", 0, "CPU each of BenchmarkCeiling's cycles spends in its source, in the monitor's process: a harsher load than a backend's, which spends its CPU in a process of its own")
	ceilingWait  = flag.Duration("ceiling.wait", 0, "wall time each of BenchmarkCeiling's cycles waits for its source (go run ./bench's cycle at 100,000 apps: about 1.4s)")
	ceilingWrk   = flag.String("ceiling.wrk", "wrk", "wrk binary of BenchmarkCeiling; without it, Go clients in this process")
	ceilingObjs  = flag.Int("ceiling.objectives", 1000, "objectives of BenchmarkCeiling, as go run ./bench writes them")
	ceilingOnly  = flag.String("ceiling.only", "", "regexp of the BenchmarkCeiling rows to run (their names); empty: all")
)

// ceilingTurns is how many turns each server gets.
const ceilingTurns = 3

// ceilingReport is the report bench/run.go asks: the month before the
// monitor's clock's (t0), whole.
const ceilingReport = "/api/reports/2026-10"

// ceilingEndpoints are bench/run.go's endpoints, and the gzip and 304
// answers of the reports, which need no saved record.
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
	{"objectives", "/api/objectives", nil},
	{"objectives_gzip", "/api/objectives", http.Header{"Accept-Encoding": {"gzip"}}},
	{"report", ceilingReport, nil},
	{"report_csv", ceilingReport + "?format=csv", nil},
	{"report_gzip", ceilingReport, http.Header{"Accept-Encoding": {"gzip"}}},
	{"report_csv_gzip", ceilingReport + "?format=csv", http.Header{"Accept-Encoding": {"gzip"}}},
	{"report_304", ceilingReport, http.Header{"If-None-Match": {""}}},
}

// ceilingObjectives are n objectives as bench/procs.go writes them: one in
// ten over a location, the rest over apps spread over the fleet.
func ceilingObjectives(tb testing.TB, o *Options, n int) {
	n = min(n, len(o.Apps))
	windows := []string{"30d", "28d", "90d", "month", "quarter"}
	targets := []string{"99.9%", "99.5%", "99.95%", "99%"}
	for j := range n {
		sub := objective.Subject{App: o.Apps[j*(len(o.Apps)/n)].Name}
		if j%10 == 9 {
			sub = objective.Subject{Location: o.Locations[(j/10)%len(o.Locations)].Name}
		}
		o.Objectives = append(o.Objectives, mustObjective(tb, fmt.Sprintf("objective-%05d", j),
			targets[j%len(targets)], windows[j%len(windows)], sub, nil))
	}
}

// ceilingRows are the rows -ceiling.only selects.
func ceilingRows(tb testing.TB) []int {
	re, err := regexp.Compile(*ceilingOnly)
	if err != nil {
		tb.Fatal(err)
	}
	var rows []int
	for i, ep := range ceilingEndpoints {
		if re.MatchString(ep.name) {
			rows = append(rows, i)
		}
	}
	return rows
}

func BenchmarkCeiling(b *testing.B) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m, clock := largeMonitorWith(b, *ceilingApps, 100, 2, func(o *Options) {
		o.Gatherer = reg
		ceilingObjectives(b, o, *ceilingObjs)
		if *ceilingBusy > 0 || *ceilingWait > 0 {
			batches := time.Duration(len(o.Apps) / o.Backends[0].BatchSize)
			o.Backends[0].Source = busySource{spin: *ceilingBusy / batches, wait: *ceilingWait / batches}
		}
	})
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
	wg.Go(func() { advanceEvery(ctx, clock, *ceilingCycle) })
	defer wg.Wait()
	defer cancel()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	waitFor(b, "Run's first cycle", func() bool { return getStatus(srv.URL+"/health") == http.StatusOK })
	for _, i := range ceilingRows(b) {
		ep := ceilingEndpoints[i]
		b.Run(ep.name, func(b *testing.B) {
			header := ep.header.Clone()
			if _, ok := header["If-None-Match"]; ok {
				header.Set("If-None-Match", plainETag(b, srv.URL+ep.path))
			}
			static := staticCopy(b, srv.URL+ep.path, header)
			for b.Loop() {
				seq := m.snap.Load().seq
				// Short turns, alternating, so that the other load on the
				// machine falls on both alike.
				var avail, ceil float64
				for range ceilingTurns {
					avail += driveLoad(b, srv.URL+ep.path, header, *ceilingDur/ceilingTurns)
					ceil += driveLoad(b, static+ep.path, header, *ceilingDur/ceilingTurns)
				}
				b.ReportMetric(float64(m.snap.Load().seq-seq), "cycles")
				b.ReportMetric(avail/ceilingTurns, "availmon-req/s")
				b.ReportMetric(ceil/ceilingTurns, "ceiling-req/s")
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
// routing and no encoding, by a process of its own (this test binary
// running TestCeilingServer) as bench's is, so that it does not share the
// monitor's heap and garbage collector. It returns the server's URL.
func staticCopy(tb testing.TB, url string, header http.Header) string {
	res, body := ceilingGet(tb, url, header)
	tb.Logf("GET %s: %d, %d bytes", url, res.StatusCode, len(body))
	answer := ceilingAnswer{Status: res.StatusCode, Header: http.Header{}, Body: body}
	for _, k := range []string{"Content-Type", "Content-Encoding", "ETag", "Vary", "Cache-Control"} {
		if v := res.Header.Get(k); v != "" {
			answer.Header[k] = []string{v}
		}
	}
	if answer.Status != http.StatusNotModified {
		answer.Header["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	file := filepath.Join(tb.TempDir(), "answer.json")
	data, err := json.Marshal(answer)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCeilingServer$")
	cmd.Env = append(os.Environ(), "AVAILMON_CEILING_ANSWER="+file)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stdin.Close()
		cmd.Wait() //nolint:errcheck
	})
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		tb.Fatal(err)
	}
	return "http://" + strings.TrimSpace(addr)
}

// ceilingAnswer is what the ceiling server writes.
type ceilingAnswer struct {
	Status int
	Header http.Header
	Body   []byte
}

// TestCeilingServer is BenchmarkCeiling's static server when run by it:
// it serves the answer in $AVAILMON_CEILING_ANSWER, prints its address,
// and stops when its standard input closes.
func TestCeilingServer(t *testing.T) {
	file := os.Getenv("AVAILMON_CEILING_ANSWER")
	if file == "" {
		t.Skip("run by BenchmarkCeiling")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var a ceilingAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		for k, v := range a.Header {
			h[k] = v
		}
		w.WriteHeader(a.Status)
		w.Write(a.Body) //nolint:errcheck
	})}
	go srv.Serve(ln) //nolint:errcheck
	fmt.Println(ln.Addr())
	io.Copy(io.Discard, os.Stdin) //nolint:errcheck
	srv.Close()
}

// driveLoad asks url from -ceiling.c connections for d and
// returns the answers a second. With If-None-Match, each connection
// sends the tag of the last answer it got, as bench's wrk script does.
func driveLoad(tb testing.TB, url string, header http.Header, d time.Duration) float64 {
	if wrk, err := exec.LookPath(*ceilingWrk); err == nil {
		return driveWrk(tb, wrk, url, header, d)
	}
	var n atomic.Int64
	deadline := time.Now().Add(d)
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

// driveWrk is driveLoad by wrk, as go run ./bench drives the servers, so
// that the clients share neither server's process.
func driveWrk(tb testing.TB, wrk, url string, header http.Header, d time.Duration) float64 {
	args := []string{"-t2", "-c" + strconv.Itoa(*ceilingConns), "-d" + strconv.Itoa(max(1, int(d.Seconds()))) + "s"}
	for k := range header {
		args = append(args, "-H", k+": "+header.Get(k))
	}
	if header.Get("If-None-Match") != "" {
		script := filepath.Join(tb.TempDir(), "follow.lua")
		if err := os.WriteFile(script, []byte(followETagLua), 0o600); err != nil {
			tb.Fatal(err)
		}
		args = append(args, "-s", script)
	}
	out, err := exec.Command(wrk, append(args, url)...).CombinedOutput()
	if err != nil {
		tb.Fatalf("wrk: %v\n%s", err, out)
	}
	m := wrkRate.FindSubmatch(out)
	if m == nil {
		tb.Fatalf("no Requests/sec in wrk's output:\n%s", out)
	}
	if bytes.Contains(out, []byte("Non-2xx")) {
		tb.Errorf("wrk %s: errors\n%s", url, out)
	}
	rate, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		tb.Fatal(err)
	}
	return rate
}

var wrkRate = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)

// followETagLua is bench/load.go's followETagScript.
const followETagLua = `
response = function(status, headers, body)
  local tag = headers["Etag"] or headers["ETag"]
  if status == 200 and tag then wrk.headers["If-None-Match"] = tag end
end
request = function() return wrk.format() end
`

// BenchmarkCacheMemory is what each answer's cache keeps on the heap for a
// snapshot of -ceiling.apps apps: the live heap after the answer was asked
// once, less before (a snapshot keeps what its answers encoded until the
// next cycle replaces it). Run with -benchtime 1x.
func BenchmarkCacheMemory(b *testing.B) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m, _ := largeMonitorWith(b, *ceilingApps, 100, 2, func(o *Options) {
		o.Gatherer = reg
		ceilingObjectives(b, o, *ceilingObjs)
	})
	h := m.Handler()
	for _, i := range ceilingRows(b) {
		ep := ceilingEndpoints[i]
		if ep.header.Get("If-None-Match") != "" || ep.path == "/health" || ep.path == "/api/status" {
			continue
		}
		b.Run(ep.name, func(b *testing.B) {
			for b.Loop() {
				before := liveHeapBytes()
				req := httptest.NewRequest(http.MethodGet, ep.path, nil)
				req.Header = ep.header.Clone()
				if req.Header == nil {
					req.Header = http.Header{}
				}
				w := &discardWriter{h: http.Header{}}
				h.ServeHTTP(w, req)
				b.ReportMetric(float64(liveHeapBytes()-before)/1e6, "MB-kept")
				b.ReportMetric(float64(w.n)/1e6, "MB-answer")
			}
		})
	}
}

func liveHeapBytes() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// busySource is benchSource spending spin of CPU and waiting wait per
// batch.
type busySource struct{ spin, wait time.Duration }

func (s busySource) Check(ctx context.Context, apps []App) ([]Result, error) {
	for start := time.Now(); time.Since(start) < s.spin; {
	}
	if s.wait > 0 {
		t := time.NewTimer(s.wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return benchSource{}.Check(ctx, apps)
}

// advanceEvery moves clock a minute every d of wall time until ctx ends,
// so that a monitor's cycles, which wait on clock, run as the binary's do.
func advanceEvery(ctx context.Context, clock *fakeClock, d time.Duration) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			clock.Advance(time.Minute)
		}
	}
}
