package availmon_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
	"github.com/availmon/availmon/internal/promtest"
	"github.com/availmon/availmon/promsource"
)

// A backfill whose range queries a proxy holds open (or refuses) times
// each out, logs the failure once, and asks again with backoff on the
// monitor's clock, without end and without a "backfill done"; once the
// proxy lets the queries through, the next retry fills the gaps (an app
// down from T-3h to T-2h shows so in the history), logs the end of the
// failures with their count, and the metrics say so meanwhile.
func TestBackfillRetriesUntilFilled(t *testing.T) {
	t.Parallel()
	now := time.Now()
	T := now.Truncate(time.Minute)
	downFrom, downTo := T.Add(-3*time.Hour), T.Add(-2*time.Hour)
	past := promtest.OpenMetrics("demo_up", []string{`app="steady"`, `app="flaky"`},
		T.Add(-5*time.Hour), T.Add(15*time.Minute), time.Minute,
		func(series string, at time.Time) float64 {
			if series == `app="flaky"` && !at.Before(downFrom) && at.Before(downTo) {
				return 0
			}
			return 1
		})
	srv := promtest.Start(t, promtest.Past(past))
	srv.WaitForQuery(t, `demo_up`, promtest.SampleCount(2))
	for _, fault := range []promtest.Fault{promtest.Hang(), promtest.Status(http.StatusServiceUnavailable)} {
		t.Run(fault.String(), func(t *testing.T) {
			proxy := promtest.NewFaultProxy(t, srv.URL())
			proxy.Inject(promtest.Rule{Fault: fault, Range: true})
			b := startRetryingBackfill(t, proxy.URL(), now)

			// Failing: a warning, failures counted, nothing done.
			b.waitFor("a first round that fails", func() bool { return b.failures() >= 1 })
			b.waitFor("the failing queries pending", func() bool { return b.pending() > 0 })
			// The next round waits for the clock; each one fails again.
			for round := range 3 {
				before := b.failures()
				b.clock.Advance(availmon.BackfillRetryMax)
				b.waitFor("another round that fails", func() bool { return b.failures() > before })
				if round == 0 && fault.String() == "hang" && !strings.Contains(b.logs(), "backfill query timed out after 300ms") {
					t.Errorf("no timeout in the log:\n%s", b.logs())
				}
			}
			if strings.Contains(b.logs(), "backfill done") {
				t.Fatalf("backfill done while every range query failed:\n%s", b.logs())
			}

			// Healed: the next retry fills the gaps.
			proxy.Clear()
			failed := b.failures()
			b.clock.Advance(availmon.BackfillRetryMax)
			b.waitFor("backfill done", func() bool { return strings.Contains(b.logs(), `msg="backfill done"`) })
			if n := b.pending(); n != 0 {
				t.Errorf("%v queries pending after backfill done", n)
			}
			logs := b.logs()
			if n := strings.Count(logs, "level=WARN"); n != 1 {
				t.Errorf("%d warnings, want one as the failures start:\n%s", n, logs)
			}
			ended := `msg="backfill queries to a backend answer again" backend=main failed_queries=` + fmt.Sprint(failed)
			if !strings.Contains(logs, ended) {
				t.Errorf("no line %q:\n%s", ended, logs)
			}
			var resp struct {
				Data struct {
					Points []wirePoint `json:"data_points"`
				} `json:"data"`
			}
			b.api.get("/api/status/history?period=24h&resolution=5m", &resp)
			checked := 0
			for _, p := range resp.Data.Points {
				end := p.Timestamp.Add(5 * time.Minute)
				var want float64
				switch {
				case !p.Timestamp.Before(downFrom) && !end.After(downTo):
					want = 50
				case !p.Timestamp.Before(downFrom.Add(-time.Hour)) && !end.After(downFrom):
					want = 100
				default:
					continue
				}
				checked++
				if p.Availability == nil || *p.Availability != want {
					t.Errorf("bucket %s: availability %v, want %v", p.Timestamp.Format(time.TimeOnly), fmtPtr(p.Availability), want)
				}
			}
			if checked < 20 { // two hours but the buckets across their edges
				t.Errorf("%d buckets checked, want about 24 (two hours)", checked)
			}
			if testing.Verbose() {
				t.Log(logs)
			}
		})
	}
}

// retryingBackfill is a monitor backfilling through a proxy, with a fake
// clock and a registry to read its metrics.
type retryingBackfill struct {
	t     *testing.T
	clock *availmontest.Clock
	reg   *prometheus.Registry
	log   *promtest.SyncBuffer
	api   *apiClient
}

func startRetryingBackfill(t *testing.T, url string, now time.Time) *retryingBackfill {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	src, err := promsource.New(promsource.Options{Name: "main", URL: url, RoundTripper: tr,
		QueryTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	b := &retryingBackfill{t: t, clock: availmontest.NewClock(now), reg: prometheus.NewRegistry(), log: &promtest.SyncBuffer{}}
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv", Latitude: 32, Longitude: 34}},
		Apps: []availmon.App{
			{Name: "steady", Location: "Tel Aviv", Metric: `demo_up{app="steady"}`},
			{Name: "flaky", Location: "Tel Aviv", Metric: `demo_up{app="flaky"}`},
		},
		Backends:             []availmon.Backend{{Name: "main", URL: url, Source: src, BatchSize: promsource.BatchSize}},
		Interval:             time.Second, // a cycle ending wakes the backfill to read the clock
		Timeout:              time.Second,
		Backfill:             true,
		BackfillQueryTimeout: 300 * time.Millisecond,
		Clock:                b.clock,
		Registerer:           b.reg,
		Logger:               slog.New(slog.NewTextHandler(b.log, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = m.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	b.api = serveAPI(t, m)
	return b
}

func (b *retryingBackfill) logs() string { return b.log.String() }

func (b *retryingBackfill) metric(name string) float64 {
	b.t.Helper()
	mfs, err := b.reg.Gather()
	if err != nil {
		b.t.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			sum += m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	return sum
}

func (b *retryingBackfill) failures() float64 {
	return b.metric("availmon_backfill_query_failures_total")
}
func (b *retryingBackfill) pending() float64 { return b.metric("availmon_backfill_queries_pending") }

// waitFor polls cond until it holds, or fails the test after a minute.
func (b *retryingBackfill) waitFor(what string, cond func() bool) {
	b.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			b.t.Fatalf("timed out waiting for %s:\n%s", what, b.logs())
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not a wait for an outcome
	}
}
