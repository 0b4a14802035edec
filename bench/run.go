package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// endpoint is one row of the table: what is asked, how.
type endpoint struct {
	Name   string            `json:"name"`
	Path   string            `json:"path"`
	Header map[string]string `json:"header,omitempty"`
}

func endpoints() []endpoint {
	report := "/api/reports/" + lastMonth(time.Now())
	return []endpoint{
		{Name: "/health", Path: "/health"},
		{Name: "/api/apps", Path: "/api/apps"},
		{Name: "/api/locations", Path: "/api/locations"},
		{Name: "/api/locations/{name}", Path: "/api/locations/location-042"},
		{Name: "/api/status", Path: "/api/status"},
		{Name: "/api/status/history?period=30d&resolution=1h", Path: "/api/status/history?period=30d&resolution=1h"},
		{Name: "/api/metrics/summary", Path: "/api/metrics/summary"},
		{Name: "/api/availability?window=90d&by=app", Path: "/api/availability?window=90d&by=app"},
		{Name: "/metrics", Path: "/metrics"},
		{Name: "/api/objectives", Path: "/api/objectives"},
		// The last month whole: the report a user asks for most.
		{Name: "/api/reports/{last month}", Path: report},
		{Name: "/api/reports/{last month}?format=csv", Path: report + "?format=csv"},
		{Name: "/api/apps (gzip)", Path: "/api/apps", Header: map[string]string{"Accept-Encoding": "gzip"}},
		{Name: "/metrics (gzip)", Path: "/metrics", Header: map[string]string{"Accept-Encoding": "gzip"}},
		{Name: "/api/objectives (gzip)", Path: "/api/objectives", Header: map[string]string{"Accept-Encoding": "gzip"}},
		// A poller that sends the last ETag it got: 304s, and one full
		// answer per connection after each cycle (bench/load.go).
		{Name: "/api/locations (304)", Path: "/api/locations", Header: map[string]string{"If-None-Match": ""}},
	}
}

// lastMonth is the month before now's, in UTC, as /api/reports names it.
func lastMonth(now time.Time) string {
	y, m, _ := now.UTC().Date()
	return time.Date(y, m-1, 1, 0, 0, 0, 0, time.UTC).Format("2006-01")
}

// row is one endpoint's figures.
type row struct {
	endpoint
	Bytes       int     `json:"bytes"`
	Status      int     `json:"status"`
	Availmon    float64 `json:"availmon_rps"`
	Ceiling     float64 `json:"ceiling_rps"`
	Ratio       float64 `json:"ratio"`
	AvailmonBad int     `json:"availmon_non_2xx_3xx"`
	// PeakRSS is availmon's peak resident memory under load so far, read
	// after this endpoint's load: the endpoint whose row it grows at is
	// the one that made the peak.
	PeakRSS int64 `json:"peak_rss_so_far_bytes"`
}

// sizeRun is every figure for one app count.
type sizeRun struct {
	Apps           int     `json:"apps"`
	Locations      int     `json:"locations"`
	History        int     `json:"history_size"`
	FillSeconds    float64 `json:"history_fill_seconds"`
	Cycles         int     `json:"idle_cycles"`
	CycleSeconds   float64 `json:"cycle_seconds_mean_idle"`
	CycleMax       float64 `json:"cycle_seconds_max_idle"`
	CycleSamples   int     `json:"cycle_samples_idle"`
	CycleLoadMax   float64 `json:"cycle_seconds_max_under_load"`
	CPUPerCycle    float64 `json:"cpu_seconds_per_cycle_idle"`
	PromCPU        float64 `json:"prometheus_cpu_seconds_per_cycle_idle"`
	Requests       float64 `json:"backend_requests_per_cycle"`
	Objectives     int     `json:"objectives"`
	StateBytes     int64   `json:"state_bytes,omitempty"`
	SaveSeconds    float64 `json:"save_seconds,omitempty"`
	SaveLocked     float64 `json:"save_cycle_lock_seconds,omitempty"`
	BackendQueries int     `json:"backend_alone_queries"`
	BackendWall    float64 `json:"backend_alone_seconds_per_cycle"`
	BackendCPU     float64 `json:"backend_alone_cpu_seconds_per_cycle"`
	// The same with gzip asked for, which availmon does not ask.
	BackendGzipWall float64 `json:"backend_alone_gzip_seconds_per_cycle"`
	BackendGzipCPU  float64 `json:"backend_alone_gzip_cpu_seconds_per_cycle"`
	SteadyRSS       int64   `json:"steady_rss_bytes"`
	SteadyRSSMax    int64   `json:"steady_rss_max_bytes"`
	PeakRSS         int64   `json:"peak_rss_under_load_bytes"`
	PeakOverSteady  float64 `json:"peak_over_steady"`
	PastDays        int     `json:"past_days,omitempty"`
	PastOutages     float64 `json:"past_outages,omitempty"`
	PastRandom      bool    `json:"past_random,omitempty"`
	PastStateBytes  int     `json:"past_state_bytes,omitempty"`
	Rows            []row   `json:"rows"`
	Warning         string  `json:"warning,omitempty"`
}

type report struct {
	Label   string    `json:"label"`
	When    time.Time `json:"when"`
	CPUs    int       `json:"cpus"`
	Wrk     string    `json:"wrk"`
	Command string    `json:"command"`
	Runs    []sizeRun `json:"runs"`
}

func run(ctx context.Context, o options) error {
	dir, err := os.MkdirTemp("", "availmon-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := o.availmon
	if bin == "" {
		bin = filepath.Join(dir, "availmon")
		fmt.Println("building ./cmd/availmon")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/availmon").CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/availmon (run from the module root): %v\n%s", err, out)
		}
	}
	if o.label == "" {
		out, _ := exec.Command("git", "describe", "--always", "--dirty").Output()
		o.label = strings.TrimSpace(string(out))
	}
	rep := report{Label: o.label, When: time.Now().UTC(), CPUs: runtime.NumCPU(),
		Wrk:     fmt.Sprintf("wrk -t%d -c%d -d%s", o.threads, o.conns, o.duration),
		Command: "go run ./bench " + strings.Join(os.Args[1:], " ")}
	for _, n := range o.apps {
		r, err := measure(ctx, o, bin, dir, n)
		if err != nil {
			return fmt.Errorf("%d apps: %w", n, err)
		}
		rep.Runs = append(rep.Runs, r)
		fmt.Println(markdownRun(r))
		if err := write(o.out, rep); err != nil { // after every size: a cut run keeps what it had
			return err
		}
	}
	fmt.Printf("wrote %s.md and %s.json\n", o.out, o.out)
	return nil
}

func write(out string, rep report) error {
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(out+".json", append(js, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(out+".md", []byte(markdown(rep)), 0o644)
}

// serve runs h on a free loopback port until ctx ends.
func serve(ctx context.Context, h http.Handler) (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l) //nolint:errcheck // ends with Close
	return "http://" + l.Addr().String(), func() { srv.Close() }, nil
}

func measure(ctx context.Context, o options, bin, parent string, n int) (sizeRun, error) {
	r := sizeRun{Apps: n, Locations: o.locations, History: o.history, Objectives: min(o.objectives, n)}
	dir, err := os.MkdirTemp(parent, fmt.Sprintf("apps-%d-", n))
	if err != nil {
		return r, err
	}
	fmt.Printf("--- %d apps\n", n)
	prom, promURL, stopBackend, err := startBackend(ctx, o, dir, n)
	if err != nil {
		return r, err
	}
	defer stopBackend()
	// Before availmon starts, so that nothing else asks Prometheus.
	if err := backendFloor(ctx, promURL, prom.pid(), n, &r); err != nil {
		return r, err
	}

	cfg := filepath.Join(dir, "availmon.yaml")
	if err := os.WriteFile(cfg, []byte(availmonConfig(promURL, n, o)), 0o644); err != nil {
		return r, err
	}
	if o.past.days > 0 {
		fmt.Printf("writing %d days of synthetic past (outages %g, random %v)\n", o.past.days, o.past.outages, o.past.random)
		r.PastDays, r.PastOutages, r.PastRandom = o.past.days, o.past.outages, o.past.random
		if r.PastStateBytes, err = writePast(dir, o.past, n, o.locations, time.Now()); err != nil {
			return r, fmt.Errorf("writing the synthetic past: %w", err)
		}
	}
	addr, err := freeAddr()
	if err != nil {
		return r, err
	}
	prof := profiler{dir: o.profile, apps: n}
	am, err := startEnv(dir, prof.env(o.env), bin, append([]string{"-config", cfg, "-listen", addr}, prof.args()...)...)
	if err != nil {
		return r, err
	}
	defer am.stop()
	defer func() {
		if err := prof.keepLog(am); err != nil {
			fmt.Println("warning: keeping the GC trace:", err)
		}
	}()
	base := "http://" + addr
	if err := waitHTTP(ctx, am, base+"/api/status", 2*time.Minute); err != nil {
		return r, err
	}
	if err := settle(ctx, o, am, prom, base, prof, &r); err != nil {
		return r, err
	}
	if err := loadAll(ctx, o, base, am.pid(), &r); err != nil {
		return r, err
	}
	_, peak, err := rss(am.pid())
	if err != nil {
		return r, err
	}
	if err := prof.heap(base, "load"); err != nil {
		return r, err
	}
	r.PeakRSS = peak
	r.PeakOverSteady = float64(peak) / float64(r.SteadyRSS)
	return r, nil
}

// startBackend serves n apps' series from a generated exporter and starts
// a Prometheus that scrapes it; it returns Prometheus's process and URL
// once the series are there, and a function that stops both.
func startBackend(ctx context.Context, o options, dir string, n int) (*process, string, func(), error) {
	series := exporterText(n)
	expURL, stopExp, err := serve(ctx, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.Write(series) //nolint:errcheck
	}))
	if err != nil {
		return nil, "", nil, err
	}
	prom, promURL, err := startPrometheus(ctx, o.prom, dir, strings.TrimPrefix(expURL, "http://"))
	if err != nil {
		stopExp()
		return nil, "", nil, err
	}
	stop := func() { prom.stop(); stopExp() }
	if err := waitSeries(ctx, promURL); err != nil {
		stop()
		return nil, "", nil, err
	}
	return prom, promURL, stop, nil
}

// settle fills every app's history, measures the idle process into r and
// resets the peak RSS, so that the load that follows measures its own.
func settle(ctx context.Context, o options, am, prom *process, base string, prof profiler, r *sizeRun) error {
	began := time.Now()
	fmt.Printf("filling the history (%d checks per app)\n", o.history)
	if err := waitHistory(ctx, am, base, o.history); err != nil {
		return err
	}
	r.FillSeconds = time.Since(began).Seconds()
	if err := checkStates(base, r.Apps); err != nil {
		r.Warning = err.Error()
	}
	if err := prof.heap(base, "filled"); err != nil {
		return err
	}
	if err := idle(ctx, am.pid(), prom.pid(), base, r); err != nil {
		return err
	}
	if err := cycleWall(ctx, base, r); err != nil {
		return err
	}
	if err := stateFigures(ctx, base, am.cmd.Dir, 2*o.saveInterval+10*time.Second, r); err != nil {
		return err
	}
	if err := prof.heap(base, "idle"); err != nil {
		return err
	}
	if err := resetPeak(am.pid()); err != nil {
		return fmt.Errorf("resetting the peak RSS: %w", err)
	}
	return nil
}

// loadAll loads each endpoint -only selects in turn, watching the cycle
// time meanwhile, and adds a row to r for each, with the peak resident
// memory of process pid so far.
func loadAll(ctx context.Context, o options, base string, pid int, r *sizeRun) error {
	var cycleMu sync.Mutex
	stopCycles := watchCycles(base, func(d float64) {
		cycleMu.Lock()
		r.CycleLoadMax = max(r.CycleLoadMax, d)
		cycleMu.Unlock()
	})
	defer stopCycles()
	for _, ep := range endpoints() {
		if !o.only.MatchString(ep.Name) {
			continue
		}
		row, err := loadEndpoint(ctx, o, base, ep)
		if err != nil {
			return err
		}
		if _, row.PeakRSS, err = rss(pid); err != nil {
			return err
		}
		fmt.Printf("%-50s %9d B  availmon %9.0f  ceiling %9.0f  ratio %.2f  peak so far %s\n", ep.Name, row.Bytes, row.Availmon, row.Ceiling, row.Ratio, mb(row.PeakRSS))
		r.Rows = append(r.Rows, row)
	}
	return nil
}

// waitSeries waits until Prometheus has scraped the exporter once.
func waitSeries(ctx context.Context, promURL string) error {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		res, err := http.Get(promURL + "/api/v1/query?query=count(bench_app_up)")
		if err == nil {
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if strings.Contains(string(b), `"result":[{`) {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return fmt.Errorf("prometheus has no bench_app_up series after 2 minutes")
}

// waitHistory waits until the first app's history holds want checks.
func waitHistory(ctx context.Context, p *process, base string, want int) error {
	var got int
	for {
		res, err := http.Get(base + "/api/apps/" + appName(1))
		if err == nil {
			var v struct {
				Data struct {
					History []json.RawMessage `json:"history"`
				} `json:"data"`
			}
			json.NewDecoder(res.Body).Decode(&v) //nolint:errcheck // a bad answer is a short history
			res.Body.Close()
			if got = len(v.Data.History); got >= want {
				return nil
			}
		}
		select {
		case <-p.done:
			return fmt.Errorf("availmon exited:\n%s", p.tail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

var cycleRe = regexp.MustCompile(`(?m)^availmon_last_cycle_duration_seconds ([0-9.e+-]+)$`)

// lastCycle reads the last cycle's duration and end from /api/status and
// /metrics.
func lastCycle(base string) (end string, seconds float64, err error) {
	res, err := http.Get(base + "/api/status")
	if err != nil {
		return "", 0, err
	}
	var v struct {
		Data struct {
			LastUpdate string `json:"last_update"`
		} `json:"data"`
	}
	err = json.NewDecoder(res.Body).Decode(&v)
	res.Body.Close()
	if err != nil {
		return "", 0, err
	}
	res, err = get(base + "/metrics")
	if err != nil {
		return "", 0, err
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return "", 0, err
	}
	m := cycleRe.FindSubmatch(b)
	if m == nil {
		return "", 0, fmt.Errorf("no availmon_last_cycle_duration_seconds on /metrics")
	}
	seconds, err = strconv.ParseFloat(string(m[1]), 64)
	return v.Data.LastUpdate, seconds, err
}

// idle measures cycles, CPU (availmon's and Prometheus's), backend
// requests and resident memory for 15s without load. It asks availmon
// only for /api/status (a few hundred bytes, made once a snapshot) while
// it measures: /metrics would add an encoding of every app's series, and
// its gzip, to every cycle, work that a Prometheus scraping availmon
// causes once a scrape interval, not once a cycle (bench/README.md).
func idle(ctx context.Context, pid, promPid int, base string, r *sizeRun) error {
	fmt.Println("measuring cycles, CPU and memory without load (15s)")
	req0, err := backendRequests(base)
	if err != nil {
		return err
	}
	first, err := lastUpdate(base)
	if err != nil {
		return err
	}
	cpu0, err := cpuSeconds(pid)
	if err != nil {
		return err
	}
	prom0, err := cpuSeconds(promPid)
	if err != nil {
		return err
	}
	last, cycles := first, 0
	var rssSum int64
	var samples int
	stop := time.Now().Add(15 * time.Second)
	for time.Now().Before(stop) {
		end, err := lastUpdate(base)
		if err != nil {
			return err
		}
		if end != last {
			last = end
			cycles++
		}
		cur, _, err := rss(pid)
		if err != nil {
			return err
		}
		rssSum += cur
		samples++
		r.SteadyRSSMax = max(r.SteadyRSSMax, cur)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	cpu1, err := cpuSeconds(pid)
	if err != nil {
		return err
	}
	prom1, err := cpuSeconds(promPid)
	if err != nil {
		return err
	}
	req1, err := backendRequests(base)
	if err != nil {
		return err
	}
	r.Cycles = cycles
	if cycles > 0 {
		// The window's CPU includes its own polling (four small
		// requests a second), a small part next to a cycle of many apps.
		r.CPUPerCycle = (cpu1 - cpu0) / float64(cycles)
		r.PromCPU = (prom1 - prom0) / float64(cycles)
		// The /metrics read at the window's end may come before or after
		// its last cycle's requests are counted: a cycle's worth at most.
		r.Requests = (req1 - req0) / float64(cycles)
	}
	r.SteadyRSS = rssSum / int64(samples)
	return nil
}

// cycleWall samples the duration of the next cycles (up to 5, for at most
// 15s) from /metrics, after idle: reading /metrics every cycle costs
// availmon what idle leaves out.
func cycleWall(ctx context.Context, base string, r *sizeRun) error {
	seen := map[string]bool{}
	var sum float64
	stop := time.Now().Add(15 * time.Second)
	for len(seen) < 6 && time.Now().Before(stop) {
		end, d, err := lastCycle(base)
		if err != nil {
			return err
		}
		if !seen[end] {
			seen[end] = true
			sum += d
			r.CycleMax = max(r.CycleMax, d)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	r.CycleSeconds = sum / float64(len(seen))
	r.CycleSamples = len(seen)
	return nil
}

// watchCycles reports every new cycle's duration until stopped.
func watchCycles(base string, report func(float64)) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		last := ""
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Second):
			}
			if end, d, err := lastCycle(base); err == nil && end != last {
				last = end
				report(d)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// checkStates makes sure the apps are in the states the exporter gives
// them: a bench of apps that all failed their checks measures nothing.
func checkStates(base string, n int) error {
	res, err := http.Get(base + "/api/apps")
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var v struct {
		Data []struct{ Name, Status, Error string } `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
		return err
	}
	if len(v.Data) != n {
		return fmt.Errorf("/api/apps lists %d apps, want %d", len(v.Data), n)
	}
	wrong, example := 0, ""
	for i, a := range v.Data {
		if a.Status != state(i) {
			wrong++
			example = fmt.Sprintf("%s is %s, want %s (error %q)", a.Name, a.Status, state(i), a.Error)
		}
	}
	if wrong > 0 {
		// Reported, not fatal: on a loaded machine some checks time out,
		// and the figures are still worth having. The report says so.
		fmt.Printf("warning: %d of %d apps in the wrong state in the last cycle (a longer -interval helps): %s\n", wrong, n, example)
		return fmt.Errorf("%d of %d apps in the wrong state", wrong, n)
	}
	return nil
}
