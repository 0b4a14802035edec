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
	"github.com/availmon/availmon/internal/availtest"
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
	srv, downFrom, downTo := startDemoPast(t, T, 5*time.Hour)
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
			points := history24h(b.api)
			checked := 0
			for _, p := range points {
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

// One backend that stays down holds back only its own apps: the gaps of a
// healthy backend on the same monitor are filled while the other's range
// queries fail (flaky, on the healthy one, shows down from T-3h to T-2h),
// and once the other answers its apps are added to the same minutes (one
// of two apps down: 50%) and "backfill done" is logged.
func TestBackfillOneBackendDown(t *testing.T) {
	t.Parallel()
	now := time.Now()
	srv, downFrom, downTo := startDemoPast(t, now.Truncate(time.Minute), 5*time.Hour)
	proxy := promtest.NewFaultProxy(t, srv.URL())
	proxy.Inject(promtest.Rule{Fault: promtest.Status(http.StatusServiceUnavailable), Range: true})
	b := startBackfillFrom(t, now,
		pastBackend{name: "healthy", url: srv.URL(), apps: []string{"flaky"}},
		pastBackend{name: "down", url: proxy.URL(), apps: []string{"steady"}})

	healthyDone := `msg="backfill of a backend done; others are still asked" backend=healthy apps=1 `
	b.waitFor("the healthy backend's part applied", func() bool { return strings.Contains(b.logs(), healthyDone) })
	b.checkOutage("the other down", downFrom, downTo, 0)
	// Another round that fails changes nothing of it.
	before := b.failures()
	b.clock.Advance(availmon.BackfillRetryMax)
	b.waitFor("another round that fails", func() bool { return b.failures() > before })
	b.checkOutage("the other still down", downFrom, downTo, 0)
	if strings.Contains(b.logs(), `msg="backfill done"`) {
		t.Fatalf("backfill done while a backend's range queries fail:\n%s", b.logs())
	}

	proxy.Clear()
	b.clock.Advance(availmon.BackfillRetryMax)
	b.waitFor("backfill done", func() bool { return strings.Contains(b.logs(), `msg="backfill done"`) })
	b.checkOutage("both answered", downFrom, downTo, 50)
	if n := b.pending(); n != 0 {
		t.Errorf("%v queries pending after backfill done", n)
	}
	if n := strings.Count(b.logs(), "backfill of a backend done"); n != 1 {
		t.Errorf("%d lines for a backend's part done, want 1 (the healthy one's; the last is backfill done):\n%s", n, b.logs())
	}
	if testing.Verbose() {
		t.Log(b.logs())
	}
}

// checkOutage checks the 5-minute history buckets of the down period (want)
// and of the hour before it (100).
func (b *retryingBackfill) checkOutage(step string, downFrom, downTo time.Time, want float64) {
	b.t.Helper()
	points := history24h(b.api)
	checked := 0
	for _, p := range points {
		end := p.Timestamp.Add(5 * time.Minute)
		var w float64
		switch {
		case !p.Timestamp.Before(downFrom) && !end.After(downTo):
			w = want
		case !p.Timestamp.Before(downFrom.Add(-time.Hour)) && !end.After(downFrom):
			w = 100
		default:
			continue
		}
		checked++
		if p.Availability == nil || *p.Availability != w {
			b.t.Errorf("%s: bucket %s: availability %v, want %v", step, p.Timestamp.Format(time.TimeOnly), fmtPtr(p.Availability), w)
		}
	}
	if checked < 20 { // two hours but the buckets across their edges
		b.t.Errorf("%s: %d buckets checked, want about 24 (two hours)", step, checked)
	}
}

// retryingBackfill is a monitor backfilling through a proxy, with a fake
// clock and a registry to read its metrics.
type retryingBackfill struct {
	t     *testing.T
	clock *availmontest.Clock
	reg   *prometheus.Registry
	log   *promtest.SyncBuffer
	api   *availtest.API
}

func startRetryingBackfill(t *testing.T, url string, now time.Time) *retryingBackfill {
	return startBackfillFrom(t, now, pastBackend{name: "main", url: url, apps: []string{"steady", "flaky"}})
}

// pastBackend is a backend of a backfill test: its name, its URL and the
// demo apps (demo_up{app=...}) it is asked about.
type pastBackend struct {
	name, url string
	apps      []string
}

func startBackfillFrom(t *testing.T, now time.Time, backends ...pastBackend) *retryingBackfill {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	var apps []availmon.App
	var bes []availmon.Backend
	b := &retryingBackfill{t: t, clock: availmontest.NewClock(now), reg: prometheus.NewRegistry(), log: &promtest.SyncBuffer{}}
	log := slog.New(slog.NewTextHandler(b.log, nil))
	for _, pb := range backends {
		src, err := promsource.New(promsource.Options{Name: pb.name, URL: pb.url, RoundTripper: tr,
			QueryTimeout: 10 * time.Second, Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		bes = append(bes, availmon.Backend{Name: pb.name, URL: pb.url, Source: src, BatchSize: promsource.BatchSize})
		for _, a := range pb.apps {
			apps = append(apps, availmon.App{Name: a, Location: "Tel Aviv", Metric: `demo_up{app="` + a + `"}`, Backend: pb.name})
		}
	}
	m, err := availmon.New(availmon.Options{
		Locations:            []availmon.Location{{Name: "Tel Aviv", Latitude: 32, Longitude: 34}},
		Apps:                 apps,
		Backends:             bes,
		Interval:             time.Second, // a cycle ending wakes the backfill to read the clock
		Timeout:              time.Second,
		Backfill:             true,
		BackfillQueryTimeout: 300 * time.Millisecond,
		Clock:                b.clock,
		Registerer:           b.reg,
		Logger:               log,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = m.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	b.api = availtest.ServeAPI(t, m)
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
