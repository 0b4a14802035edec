package availmon_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
	"github.com/availmon/availmon/promsource"
)

// switchSource is a promsource.Source whose cycles can be answered by a fast
// fake instead, to fill 100 checks of history per app without 100 real
// cycles; the backfill always asks the real server (the embedded source's
// range queries).
type switchSource struct {
	*promsource.Source
	fake atomic.Bool
}

func (s *switchSource) Check(ctx context.Context, apps []availmon.App) ([]availmon.Result, error) {
	if s.fake.Load() {
		out := make([]availmon.Result, len(apps))
		for i := range out {
			out[i] = availmon.Result{Status: availmon.StatusUp, ResponseTime: time.Millisecond}
		}
		return out, nil
	}
	return s.Source.Check(ctx, apps)
}

// rss is the process's resident set, from /proc/self/status.
func rss(tb testing.TB) int64 { return procStatus(tb, "VmRSS") }

// procStatus reads a size field of /proc/self/status, in bytes.
func procStatus(tb testing.TB, field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	m := regexp.MustCompile(field + `:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		tb.Fatalf("no %s in /proc/self/status", field)
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n << 10
}

// resetPeakRSS starts the kernel's high-water mark of the resident set
// (VmHWM) afresh at the current RSS (Linux: "5" to clear_refs), so that
// the peak of what follows is measured between samples too.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// BenchmarkBackfill30d10k: 10,000 Prometheus apps, each its own series
// app_up{app="app-NNNNN"} sampled every 5 minutes for 30 days (one app in
// ten down an hour a day), every app's history full: the backfill's
// requests, wall time, Prometheus CPU, the process's peak RSS against its
// steady figure, and the cycle time while it runs against before. The
// backfill has two parts, reported apart: the minute history and 24h
// counters (history-*), then the record of availability over time
// (record-*).
//
// AVAILMON_BENCH_APPS and AVAILMON_BENCH_DAYS scale it (default 10,000
// and 30); AVAILMON_BENCH_DOWN_EVERY (default 10) and
// AVAILMON_BENCH_DOWN_MINUTE (default 0: outages on whole hours) shape the
// outages; AVAILMON_BENCH_WAIT_MINUTES (default 30) is how long it waits
// for the backfill before it fails with its log. The data is written as one TSDB block by promtest.GenerateBlock
// (about a minute for 30 days), not with promtool.
func BenchmarkBackfill30d10k(b *testing.B) {
	apps, days := envInt("AVAILMON_BENCH_APPS", 10_000), envInt("AVAILMON_BENCH_DAYS", 30)
	now := time.Now().Truncate(time.Minute)
	from, to := now.Add(-time.Duration(days)*24*time.Hour-time.Hour), now.Add(30*time.Minute)
	// The samples, 5 minutes apart, lie 2 minutes past the outages' whole
	// hours whatever minute the benchmark starts at: an outage's first and
	// last hours are mixed (asked again by minutes), as for a scrape not
	// aligned with the outages, so that runs compare (aligned, the hours
	// are pure and the minute questions vanish).
	from = from.Truncate(5 * time.Minute).Add(2 * time.Minute)
	srv := promtest.Start(b, promtest.Prepare(func(tb testing.TB, dataDir string) {
		promtest.GenerateBlock(tb, dataDir, "-metric", "app_up", "-series", strconv.Itoa(apps),
			"-start", strconv.FormatInt(from.Unix(), 10), "-end", strconv.FormatInt(to.Unix(), 10), "-step", "5m",
			"-down-every", strconv.Itoa(envInt("AVAILMON_BENCH_DOWN_EVERY", 10)),
			"-down-minute", strconv.Itoa(envInt("AVAILMON_BENCH_DOWN_MINUTE", 0)))
	}))
	srv.WaitForQuery(b, `app_up`, promtest.SampleCount(apps))
	waitIdle(b, srv)

	m, log, cycle := benchBackfillMonitor(b, srv, apps)
	var before []time.Duration
	for range 3 {
		before = append(before, cycle())
	}
	steady := rss(b)
	hwm := resetPeakRSS()
	cpu0, _ := srv.CPUTime()

	b.ResetTimer()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	began := time.Now()
	go func() { done <- m.Run(ctx) }()
	history, record := backfillPhase{done: `msg="backfill done"`}, backfillPhase{done: `msg="backfill of the record of availability done"`}
	peak := steady
	wait := time.Duration(envInt("AVAILMON_BENCH_WAIT_MINUTES", 30)) * time.Minute
	for _, ph := range []*backfillPhase{&history, &record} {
		for !strings.Contains(log.String(), ph.done) {
			if time.Since(began) > wait {
				b.Fatalf("no %s within %v; the log:\n%s", ph.done, wait, log.String())
			}
			ph.cycles = append(ph.cycles, cycle())
			peak = max(peak, rss(b))
			// Cycles at a pace, as Run would have them: back to back they
			// starve the backfill's queries (Prometheus timed them out).
			time.Sleep(5 * time.Second)
		}
		ph.cpu, _ = srv.CPUTime()
	}
	if hwm {
		peak = max(peak, procStatus(b, "VmHWM"))
	}
	b.StopTimer()
	cancel()
	<-done
	// The backfill's own requests and durations, as it logs them: the
	// cycles' queries go to the same server meanwhile, and the loop above
	// sees a line up to a pause after it.
	history.report(b, "history", log.String(), "queries", cpu0)
	record.report(b, "record", log.String(), "requests", history.cpu)
	b.ReportMetric(float64(steady)/(1<<20), "steady-rss-MiB")
	b.ReportMetric(float64(peak)/float64(steady), "peak/steady-rss")
	b.ReportMetric(slices.Max(before).Seconds(), "cycle-before-max-s")
	b.ReportMetric(slices.Sorted(slices.Values(before))[len(before)/2].Seconds(), "cycle-before-median-s")
	b.Logf("cycles before %v, during the history's fill %v, during the record's %v", before, history.cycles, record.cycles)
	if path := os.Getenv("AVAILMON_BENCH_LOG"); path != "" {
		if err := os.WriteFile(path, []byte(log.String()), 0o644); err != nil {
			b.Error(err)
		}
	}
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "backfill") {
			b.Log(l)
		}
	}
}

// benchBackfillMonitor is the benchmark's monitor of apps app_up{app=...}
// on srv, its every app's history filled by 100 fast fake cycles; cycle
// runs one real cycle and says how long it took.
func benchBackfillMonitor(b *testing.B, srv *promtest.Server, apps int) (*availmon.Monitor, *promtest.SyncBuffer, func() time.Duration) {
	be, _ := availtest.PromBackend(b, "main", srv)
	src := &switchSource{Source: be.Source.(*promsource.Source)}
	be.Source = src
	log := &promtest.SyncBuffer{}
	o := availmon.Options{Backends: []availmon.Backend{be}, Interval: time.Hour, Backfill: true,
		Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: benchLogLevel()}))}
	for l := range 100 {
		o.Locations = append(o.Locations, availmon.Location{Name: fmt.Sprintf("location-%03d", l)})
	}
	for a := range apps {
		o.Apps = append(o.Apps, availmon.App{Name: fmt.Sprintf("app-%05d", a), Location: fmt.Sprintf("location-%03d", a%100),
			Metric: fmt.Sprintf(`app_up{app="app-%05d"}`, a)})
	}
	m, err := availmon.New(o)
	if err != nil {
		b.Fatal(err)
	}
	src.fake.Store(true)
	for range 100 {
		if err := m.Scrape(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	src.fake.Store(false)
	return m, log, func() time.Duration {
		start := time.Now()
		if err := m.Scrape(context.Background()); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
}

// benchLogLevel is AVAILMON_BENCH_DEBUG's: set, the log (and the
// benchmark's output) has the backfill's every question;
// AVAILMON_BENCH_LOG names a file the whole log is written to.
func benchLogLevel() slog.Level {
	if os.Getenv("AVAILMON_BENCH_DEBUG") != "" {
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

// backfillPhase is one part of the backfill as the benchmark sees it:
// done is its log line's message, cpu Prometheus's CPU time when the
// benchmark saw it, cycles the cycle times while it ran.
type backfillPhase struct {
	done   string
	cpu    time.Duration
	cycles []time.Duration
}

// report reports the phase's requests (the count field of its done line),
// duration and Prometheus CPU since cpu0, and its cycles' times.
func (ph *backfillPhase) report(b *testing.B, name, log, count string, cpu0 time.Duration) {
	if m := regexp.MustCompile(ph.done + `.* ` + count + `=(\d+)`).FindStringSubmatch(log); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		b.ReportMetric(float64(n), name+"-requests")
	}
	if m := regexp.MustCompile(ph.done + `.* duration=(\S+)`).FindStringSubmatch(log); m != nil {
		if d, err := time.ParseDuration(m[1]); err == nil {
			b.ReportMetric(d.Seconds(), name+"-s")
		}
	}
	b.ReportMetric((ph.cpu - cpu0).Seconds(), name+"-prometheus-cpu-s")
	if len(ph.cycles) > 0 {
		b.ReportMetric(slices.Max(ph.cycles).Seconds(), name+"-cycle-max-s")
		sorted := slices.Sorted(slices.Values(ph.cycles))
		b.ReportMetric(sorted[len(sorted)/2].Seconds(), name+"-cycle-median-s")
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// waitIdle waits until Prometheus's CPU use settles (it compacts the
// blocks promtool wrote after it starts), so the backfill's cost is its own.
func waitIdle(tb testing.TB, srv *promtest.Server) {
	last, _ := srv.CPUTime()
	for range 30 {
		time.Sleep(2 * time.Second) // sampling CPU use, not waiting for an outcome
		cur, _ := srv.CPUTime()
		if cur-last < 200*time.Millisecond {
			return
		}
		last = cur
	}
}
