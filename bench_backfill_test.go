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
	"github.com/availmon/availmon/internal/promtest"
)

// switchSource is a PrometheusSource whose cycles can be answered by a fast
// fake instead, to fill 100 checks of history per app without 100 real
// cycles; the backfill always asks the real server (the embedded source's
// range queries).
type switchSource struct {
	*availmon.PrometheusSource
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
	return s.PrometheusSource.Check(ctx, apps)
}

// rss is the process's resident set, from /proc/self/status.
func rss(tb testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(b)
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n << 10
}

// BenchmarkBackfill30d10k: 10,000 Prometheus apps (over 100 series sampled
// every 5 minutes for 30 days), every app's history full: the backfill's
// requests, wall time, Prometheus CPU, the process's peak RSS against its
// steady figure, and the cycle time while it runs against before.
//
// AVAILMON_BENCH_APPS and AVAILMON_BENCH_DAYS scale it down (default 10,000
// and 30): writing 30 days of blocks with promtool alone takes minutes.
func BenchmarkBackfill30d10k(b *testing.B) {
	const series = 100
	apps, days := envInt("AVAILMON_BENCH_APPS", 10_000), envInt("AVAILMON_BENCH_DAYS", 30)
	now := time.Now().Truncate(time.Minute)
	names := make([]string, series)
	for i := range names {
		names[i] = fmt.Sprintf(`app="s%03d"`, i)
	}
	past := promtest.OpenMetrics("demo_up", names, now.Add(-time.Duration(days)*24*time.Hour-time.Hour), now.Add(30*time.Minute), 5*time.Minute,
		func(s string, t time.Time) float64 {
			if strings.HasSuffix(s, `7"`) && t.Hour() == 3 {
				return 0 // some apps down an hour a day
			}
			return 1
		})
	srv := promtest.Start(b, promtest.Past(past))
	past = ""
	srv.WaitForQuery(b, `demo_up`, promtest.SampleCount(series))
	waitIdle(b, srv)

	be, ct := promBackend(b, "main", srv)
	src := &switchSource{PrometheusSource: be.Source.(*availmon.PrometheusSource)}
	be.Source = src
	var log promtest.SyncBuffer
	o := availmon.Options{Backends: []availmon.Backend{be}, Interval: time.Hour, Backfill: true,
		Logger: slog.New(slog.NewTextHandler(&log, nil))}
	for l := range 100 {
		o.Locations = append(o.Locations, availmon.Location{Name: fmt.Sprintf("location-%03d", l)})
	}
	for a := range apps {
		o.Apps = append(o.Apps, availmon.App{Name: fmt.Sprintf("app-%05d", a), Location: fmt.Sprintf("location-%03d", a%100),
			Metric: fmt.Sprintf(`demo_up{app="s%03d"}`, a%series)})
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
	cycle := func() time.Duration {
		start := time.Now()
		if err := m.Scrape(context.Background()); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var before []time.Duration
	for range 3 {
		before = append(before, cycle())
	}
	steady := rss(b)
	cpu0, _ := srv.CPUTime()
	req0 := ct.requests.Load()

	b.ResetTimer()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	began := time.Now()
	go func() { done <- m.Run(ctx) }()
	var during []time.Duration
	peak := steady
	cycles := 1 // Run's own first cycle
	for !strings.Contains(log.String(), `msg="backfill done"`) {
		during = append(during, cycle())
		cycles++
		peak = max(peak, rss(b))
		// Cycles at a pace, as Run would have them: back to back they
		// starve the backfill's queries (Prometheus timed them out).
		time.Sleep(5 * time.Second)
	}
	wall := time.Since(began)
	cpu1, _ := srv.CPUTime()
	requests := ct.requests.Load() - req0 - int64(cycles*apps/availmon.PrometheusBatchSize)
	b.StopTimer()
	cancel()
	<-done
	b.ReportMetric(float64(requests), "backfill-requests")
	b.ReportMetric(wall.Seconds(), "backfill-s")
	b.ReportMetric((cpu1 - cpu0).Seconds(), "prometheus-cpu-s")
	b.ReportMetric(float64(steady)/(1<<20), "steady-rss-MiB")
	b.ReportMetric(float64(peak)/float64(steady), "peak/steady-rss")
	b.ReportMetric(slices.Max(before).Seconds(), "cycle-before-max-s")
	if len(during) > 0 {
		b.ReportMetric(slices.Max(during).Seconds(), "cycle-during-max-s")
	}
	b.Logf("cycles before %v, during %v", before, during)
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "backfill") {
			b.Log(l)
		}
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
