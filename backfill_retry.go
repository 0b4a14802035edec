package availmon

import (
	"github.com/availmon/availmon/internal/errtext"

	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// DefaultBackfillQueryTimeout is Options.BackfillQueryTimeout when it is
// zero: Prometheus's own default query timeout, past which a sound server
// has given up on the query anyway.
const DefaultBackfillQueryTimeout = 2 * time.Minute

// A backfill whose queries fail is asked again after BackfillRetryMin, then
// after twice as long each time, up to BackfillRetryMax: a backend down for
// an hour costs a few rounds of queries, not one every few seconds, and is
// filled within BackfillRetryMax of its return.
const (
	BackfillRetryMin = 10 * time.Second
	BackfillRetryMax = 10 * time.Minute
)

// backfillBackoff is the wait before retry number n (0 is the first).
func backfillBackoff(n int) time.Duration {
	d := BackfillRetryMin
	for range n {
		if d >= BackfillRetryMax/2 {
			return BackfillRetryMax
		}
		d *= 2
	}
	return d
}

// askPast asks the jobs round after round until every one has answered,
// waiting with backoff between rounds, and applies what has answered after
// each round. It returns false when ctx ended first.
func (m *Monitor) askPast(ctx context.Context, jobs []*pastJob, win pastWindow, res *pastResult) bool {
	for round := 0; ; round++ {
		jobs = m.pastRound(ctx, jobs, win, res)
		m.applyAnswered(res, jobs)
		if ctx.Err() != nil {
			return false
		}
		if len(jobs) == 0 {
			return true
		}
		if !m.sleepUntil(ctx, m.clock.Now().Add(backfillBackoff(round))) {
			return false
		}
		jobs = m.rebindPast(jobs)
	}
}

// rebindPast points jobs at the current sources of their backends, as a
// reconfiguration may have replaced them meanwhile, and drops the jobs of
// backends that are gone or can no longer tell the past.
func (m *Monitor) rebindPast(jobs []*pastJob) []*pastJob {
	m.cycleMu.Lock()
	p := m.plan
	m.cycleMu.Unlock()
	return slices.DeleteFunc(jobs, func(j *pastJob) bool {
		bi, ok := p.backendIndex(j.backend)
		if ok && m.rebind(j, p.backends[bi].Source) {
			return false
		}
		m.bf.metrics.pending.WithLabelValues(j.backend).Dec()
		m.conds.End(backfillKey(j.backend))
		return true
	})
}

// rebind points j at src, its backend's source now, and reports whether
// src can ask it: the source that planned it, or one that adopts it.
func (m *Monitor) rebind(j *pastJob, src Source) bool {
	if sameSource(src, j.src) {
		return true
	}
	a, ok := src.(PastAdopter)
	if !ok {
		return false
	}
	q, ok := a.AdoptPast(j.q)
	if !ok {
		return false
	}
	j.q, j.src, j.reports = q, src, reportsRequests(src)
	return true
}

// pastRound asks what is left of each job, in order. A backend whose query
// fails is asked nothing more this round: its failure is most likely the
// next query's too (a backend down, a proxy holding queries open), and
// each would wait for its timeout. It returns the jobs left, those not
// asked first and those that failed last, so that a query that keeps
// failing does not hold back the others.
func (m *Monitor) pastRound(ctx context.Context, jobs []*pastJob, win pastWindow, res *pastResult) (left []*pastJob) {
	failed := make(map[string]bool)
	var retry []*pastJob
	for _, j := range jobs {
		if ctx.Err() != nil || failed[j.backend] {
			left = append(left, j)
			continue
		}
		err := m.advance(ctx, j, win, res)
		switch {
		case ctx.Err() != nil:
			left = append(left, j)
		case err != nil:
			failed[j.backend] = true
			retry = append(retry, j)
			res.failed.Add(1)
			m.bf.metrics.failures.WithLabelValues(j.backend).Inc()
			m.warnStarted(backfillKey(j.backend), m.clock.Now(),
				"backfill queries to a backend fail; asking again with backoff until they answer",
				"backend", j.backend, "err", errtext.Truncate(err.Error(), maxErrorText))
		default:
			m.bf.metrics.pending.WithLabelValues(j.backend).Dec()
		}
	}
	return append(left, retry...)
}

func backfillKey(backend string) string { return "backfill\x00" + backend }

// tryPast runs ask, a question of job j, bounded by the backfill's query
// timeout, up to backfillTries times while it fails, each time giving way
// to the cycles (internal/cyclegate). A query answered ends the backend's
// failing condition. It counts the requests sent in res.queries.
func (m *Monitor) tryPast(ctx context.Context, j *pastJob, res *pastResult, ask func(context.Context) error) error {
	backend := j.backend
	var err error
	for range backfillTries {
		err = m.cycles.Run(ctx, func(ctx context.Context) error {
			qctx, cancel := context.WithTimeout(ctx, m.bf.timeout)
			defer cancel()
			if j.reports {
				qctx = WithRequestObserver(qctx, func(time.Duration, error) { res.queries.Add(1) })
			} else {
				res.queries.Add(1)
			}
			err := ask(qctx)
			if err != nil && ctx.Err() == nil && errors.Is(qctx.Err(), context.DeadlineExceeded) {
				err = fmt.Errorf("backfill query timed out after %s: %w", formatDuration(m.bf.timeout), err)
			}
			return err
		})
		if err == nil || ctx.Err() != nil {
			break
		}
	}
	if err == nil {
		m.infoEnded(backfillKey(backend), m.clock.Now(), "backfill queries to a backend answer again", "failed_queries",
			"backend", backend)
	}
	return err
}

// sleepUntil waits until the monitor's clock reads due, or ctx ends
// (false). It reads the clock when a timer for what is left fires (on the
// clock, when it makes timers) and whenever a cycle ends, so that a clock
// set meanwhile is followed within a cycle.
func (m *Monitor) sleepUntil(ctx context.Context, due time.Time) bool {
	for {
		left := due.Sub(m.clock.Now())
		if left <= 0 {
			return true
		}
		ended := m.cycles.Ended()
		t := m.timers.NewTimer(left)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-ended:
			t.Stop()
		case <-t.C():
		}
	}
}

// backfillMetrics say how far the backfill is, per backend, and whether
// its queries fail: meanwhile the log says so only when failures start and
// when they end.
type backfillMetrics struct {
	pending     *prometheus.GaugeVec
	failures    *prometheus.CounterVec
	ratio       prometheus.Gauge
	appsPending prometheus.Gauge
}

func newBackfillMetrics() backfillMetrics {
	return backfillMetrics{
		pending: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "availmon_backfill_queries_pending",
			Help: "Planned backfill queries of a backend not answered yet; 0 once the backfill is done.",
		}, []string{"backend"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "availmon_backfill_query_failures_total",
			Help: "Backfill queries to a backend that failed or timed out (each asked twice); they are asked again with backoff.",
		}, []string{"backend"}),
		ratio: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "availmon_backfill_progress_ratio",
			Help: "How far the backfill of the record of availability over time has come, 0 to 1; 1 once done.",
		}),
		appsPending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "availmon_backfill_apps_pending",
			Help: "Apps whose past the backfill of the record of availability over time has still to fill.",
		}),
	}
}

func (b backfillMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{b.pending, b.failures, b.ratio, b.appsPending}
}
