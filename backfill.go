package availmon

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync/atomic"
	"time"

	"github.com/availmon/availmon/internal/backfill"
	"github.com/availmon/availmon/internal/cyclegate"
	"github.com/availmon/availmon/internal/errtext"
	"github.com/availmon/availmon/internal/history"
	"github.com/prometheus/client_golang/prometheus"
)

// The backfill asks a backend for the past one minute apart (the history's
// finest bucket), one query at a time: a query keeps one of the backend's
// cores busy, and the cycles' queries get the others, so a cycle never
// waits behind the backfill.
const (
	backfillStep = time.Minute
	// backfillTries: a query that failed (a timeout, a restart) is asked
	// once more at once; past that, its job waits for the next retry
	// (askPast).
	backfillTries = 2
	// backfillProbe is the step of the query that finds where a
	// backend's data begins: no query is sent for the days before it.
	backfillProbe = time.Hour
)

// pastResult is what a backfill learned. What has answered is applied
// after each round (applyPast), so that a backend that stays down holds
// back only its own apps: the minute counts are cumulative and rewrite the
// buckets this backfill wrote before, the 24h counters of a backend's apps
// are added once all its queries have answered. It is flat (no per-minute
// or per-app maps): at 10,000 apps over 30 days the backfill must not add
// much to the process's memory.
type pastResult struct {
	asked     int        // apps asked about
	first     int64      // unix minute of minutes[0]
	minutes   [][2]int32 // per minute of the window: apps up, down
	written   [][2]int32 // per minute: what the last apply wrote in its bucket; zero when none
	firstHour int64      // unix hour of the day window's first hour
	names     []string   // apps asked about, by their index in hours
	hours     [][24][2]int32
	parts     []pastPart
	changed   bool         // answers merged since the last apply
	filled    int          // minutes filled so far
	queries   atomic.Int64 // requests sent
	failed    atomic.Int64 // requests that failed twice
}

// pastPart is the apps of one backend in a pastResult: names[lo:hi].
type pastPart struct {
	backend string
	lo, hi  int
	applied bool // its 24h counters are added
}

// pastAdd is one step of one answer: the up and down count of minute k
// (h < 0), or of hour h of app k. An answer's adds are merged only once
// the whole answer is in, so that an answer asked again after a failure
// is not counted twice.
type pastAdd struct {
	k, h     int
	up, down int32
}

func (res *pastResult) merge(adds []pastAdd) {
	res.changed = res.changed || len(adds) > 0
	for _, a := range adds {
		c := &res.minutes[a.k]
		if a.h >= 0 {
			c = &res.hours[a.k][a.h]
		}
		c[0], c[1] = c[0]+a.up, c[1]+a.down
	}
}

// startBackfill starts, once per Monitor and only with Options.Backfill, a
// goroutine that fills the history this monitor has no observation for
// from the backends that can tell the past. It returns what Run calls on
// its way out: stop the backfill and wait for it.
func (m *Monitor) startBackfill(ctx context.Context) (stop func()) {
	if !m.bf.enabled || !m.bf.started.CompareAndSwap(false, true) {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.runBackfill(ctx)
	}()
	return func() { cancel(); <-done }
}

// pastWindow is what a backfill asks for: the minutes of the history
// window nobody observed (want), in spans, and the clock hours of the 24h
// counters.
type pastWindow struct {
	want      map[int64]bool
	spans     [][2]time.Time
	end       time.Time // the current minute: the cycles'
	firstHour int64
}

func (m *Monitor) runBackfill(ctx context.Context) {
	m.fillHistory(ctx)
	if ctx.Err() == nil {
		m.backfillRecord(ctx)
	}
}

// fillHistory fills the minute history and the 24h counters.
func (m *Monitor) fillHistory(ctx context.Context) {
	began := time.Now()
	jobs, win, res := m.planBackfill()
	if len(jobs) == 0 {
		return
	}
	m.log.Info("backfill started: asking the backends for the history this instance did not see",
		"apps", res.asked, "planned_queries", len(jobs), "from", win.spans[0][0].UTC(), "to", win.end.UTC())
	for _, j := range jobs {
		m.bf.metrics.pending.WithLabelValues(j.backend).Inc()
	}
	if !m.askPast(ctx, jobs, win, res) {
		m.log.Info("backfill stopped before its end; what had answered is applied", "minutes_filled", res.filled)
		return
	}
	m.log.Info("backfill done", "minutes_filled", res.filled, "apps", res.asked, "queries", res.queries.Load(),
		"failed_queries", res.failed.Load(), "duration", time.Since(began).Round(time.Millisecond))
}

// applyAnswered applies what the backends have answered so far (left are
// the jobs still to ask), and logs each backend whose part is done while
// others are still asked: a backend that stays down does not hold back the
// gaps of the others.
func (m *Monitor) applyAnswered(res *pastResult, left []*pastJob) {
	filled, done := m.applyPast(res, m.clock.Now(), left)
	res.filled += filled
	if len(left) == 0 {
		return
	}
	for _, pt := range done {
		m.log.Info("backfill of a backend done; others are still asked", "backend", pt.backend,
			"apps", pt.hi-pt.lo, "minutes_filled", filled, "pending_queries", len(left))
	}
}

// planBackfill finds the minutes of the history window nobody observed
// and plans the queries that ask the backends about them, one job each.
func (m *Monitor) planBackfill() ([]*pastJob, pastWindow, *pastResult) {
	now := m.clock.Now()
	end := now.Truncate(time.Minute)
	from := end.Add(-30 * 24 * time.Hour)
	m.cycleMu.Lock()
	p := m.plan
	seen := m.hist.seenSince(from)
	m.cycleMu.Unlock()

	cadence := int64((m.Interval() + time.Minute - 1) / time.Minute)
	want, spans := gaps(seen, from, end, cadence)
	win := pastWindow{want: want, spans: spans, end: end, firstHour: now.Unix()/3600 - 23}
	if len(spans) == 0 {
		return nil, win, nil
	}
	n := end.Sub(from) / time.Minute
	res := &pastResult{first: from.Unix() / 60, minutes: make([][2]int32, n), written: make([][2]int32, n), firstHour: win.firstHour}
	var jobs []*pastJob
	for bi, be := range p.backends {
		src, ok := be.Source.(PastSource)
		if !ok {
			continue
		}
		apps := p.appsOf(bi)
		base := len(res.names)
		for _, a := range apps {
			res.names = append(res.names, a.Name)
		}
		res.asked += len(apps)
		res.parts = append(res.parts, pastPart{backend: be.Name, lo: base, hi: len(res.names)})
		reports := reportsRequests(be.Source)
		for _, q := range src.PlanPast(apps) {
			jobs = append(jobs, &pastJob{q: q, src: be.Source, reports: reports, base: base, apps: len(apps), backend: be.Name})
		}
	}
	res.hours = make([][24][2]int32, len(res.names))
	return jobs, win, res
}

// pastJob is what is left to ask of one planned query: its probe until it
// answered, then the 24h counters' runs and the minute counts' ranges not
// answered yet.
type pastJob struct {
	q   PastQuery
	src Source // that asks q
	// reports: src reports its requests, which the backfill counts;
	// otherwise it counts questions.
	reports bool
	base    int // the index in pastResult.names of the first app q was planned over
	apps    int // how many apps q was planned over: a count of another is a faulty source's
	backend string
	probed  bool
	hourRs  []PastRange
	countRs []PastRange
}

// advance asks what is left of job j: where its data begins, then the 24h
// counters per hour, then the minute counts, each only from where the data
// begins. It stops at the first query that fails, and returns its error;
// each answered query is merged into res and dropped from j.
func (m *Monitor) advance(ctx context.Context, j *pastJob, win pastWindow, res *pastResult) error {
	if !j.probed {
		var first time.Time
		var found bool
		probe := PastRange{Start: win.spans[0][0], End: win.end, Step: backfillProbe}
		err := m.tryPast(ctx, j, res, func(ctx context.Context) (err error) {
			first, found, err = j.q.Probe(ctx, probe)
			return err
		})
		if m.giveUpPast(j.backend, err, probe, "probe") {
			found, err = false, nil
		}
		if err != nil {
			return err
		}
		j.probed = true
		if !found {
			return nil // no data at all in the window
		}
		// The data may begin up to a probe's step before the probe that
		// saw it.
		start := later(win.spans[0][0], first.Add(-backfillProbe))
		j.hourRs = hourRuns(win, start)
		steps := j.q.MaxSteps()
		for _, sp := range win.spans {
			j.countRs = append(j.countRs, chunks(later(sp[0], start), sp[1], backfillStep, steps)...)
		}
	}
	var adds []pastAdd
	for len(j.hourRs) > 0 {
		hr := j.hourRs[0]
		err := m.tryPast(ctx, j, res, func(ctx context.Context) error {
			adds = adds[:0]
			return j.q.Hours(ctx, hr, func(c PastCount) {
				if h := c.At.Unix()/3600 - res.firstHour; h >= 0 && h < 24 && c.App >= 0 && c.App < j.apps {
					adds = append(adds, pastAdd{k: j.base + c.App, h: int(h), up: int32(c.Up), down: int32(c.Down)})
				}
			})
		})
		if m.giveUpPast(j.backend, err, hr, "hours") {
			adds, err = adds[:0], nil
		}
		if err != nil {
			return err
		}
		res.merge(adds)
		j.hourRs = j.hourRs[1:]
	}
	for len(j.countRs) > 0 {
		err := m.tryPast(ctx, j, res, func(ctx context.Context) error {
			adds = adds[:0]
			return j.q.Counts(ctx, j.countRs[0], func(c PastCount) {
				min := c.At.Unix() / 60
				if k := min - res.first; win.want[min] && k >= 0 && k < int64(len(res.minutes)) {
					adds = append(adds, pastAdd{k: int(k), h: -1, up: int32(c.Up), down: int32(c.Down)})
				}
			})
		})
		if m.giveUpPast(j.backend, err, j.countRs[0], "counts") {
			adds, err = adds[:0], nil
		}
		if err != nil {
			return err
		}
		res.merge(adds)
		j.countRs = j.countRs[1:]
	}
	return nil
}

// hourRuns, the questions of the 24h counters, split the unobserved minutes of the day window from start on
// into runs of consecutive minutes within one clock hour, each evaluated
// half a minute after its last minute (see promql.Query.UpString), and
// asks runs of the same length an hour apart in one range query: a
// fresh instance asks the 23 whole hours in one and the current hour in
// another.
func hourRuns(win pastWindow, start time.Time) []PastRange {
	from := max(start.Unix()/60, win.firstHour*60)
	last := win.end.Unix() / 60
	var out []PastRange
	for h := win.firstHour; h*60 < last; h++ {
		run := int64(-1)
		stop := min((h+1)*60, last)
		for m := max(h*60, from); m <= stop; m++ {
			if m < stop && win.want[m] {
				if run < 0 {
					run = m
				}
				continue
			}
			if run < 0 {
				continue
			}
			at := time.Unix(m*60-30, 0)
			window := time.Duration(m-run) * time.Minute
			if n := len(out); n > 0 && out[n-1].Window == window && out[n-1].End.Add(time.Hour).Equal(at) {
				out[n-1].End = at
			} else {
				out = append(out, PastRange{Start: at, End: at, Step: time.Hour, Window: window})
			}
			run = -1
		}
	}
	return out
}

// applyPast fills the minute buckets nobody observed with what has
// answered so far, and adds the past checks of the backends none of whose
// jobs are left to the 24h counters, by app name, under the cycle lock,
// and publishes a snapshot with them. Each backend's counters are added
// once: it returns the parts it added (done) and how many minutes it
// filled that no earlier apply had.
func (m *Monitor) applyPast(res *pastResult, now time.Time, left []*pastJob) (filled int, done []pastPart) {
	pending := make(map[string]bool)
	for _, j := range left {
		pending[j.backend] = true
	}
	for i := range res.parts {
		if pt := &res.parts[i]; !pt.applied && !pending[pt.backend] {
			pt.applied = true
			done = append(done, *pt)
		}
	}
	if !res.changed && len(done) == 0 {
		return 0, nil
	}
	res.changed = false
	m.cycleMu.Lock()
	defer m.cycleMu.Unlock()
	filled = m.hist.fillPast(res.first, res.minutes, res.written, res.asked, now)
	for _, pt := range done {
		m.addPastHours(res, pt)
	}
	m.publish(now, m.snap.Load().eventSeq)
	return filled, done
}

// addPastHours adds the past checks of part pt's apps to the 24h counters
// of the app, its location and the system.
func (m *Monitor) addPastHours(res *pastResult, pt pastPart) {
	p, st := m.plan, m.state
	for k := pt.lo; k < pt.hi; k++ {
		i, ok := p.appIndex[res.names[k]]
		if !ok {
			continue // removed while the backfill ran
		}
		for h, n := range res.hours[k] {
			if n[0]+n[1] == 0 {
				continue
			}
			hour, c := res.firstHour+int64(h), history.Counts{Up: int64(n[0]), Down: int64(n[1])}
			st.editDay(i, func(w *history.AppDay) { w.AddHour(hour, c) })
			st.locDay[p.appLocs[i]].AddHour(hour, c)
			st.sysDay.AddHour(hour, c)
		}
	}
}

// seenSince returns the minutes from since on that hold an observation.
func (h *minuteHistory) seenSince(since time.Time) map[int64]bool {
	from := since.Unix() / 60
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make(map[int64]bool)
	for _, b := range h.buckets {
		if b.seen && int64(b.minute) >= from {
			out[int64(b.minute)] = true
		}
	}
	return out
}

// fillPast writes past minute counts (minutes[k] is of unix minute
// first+k) into buckets that hold no observation of their minute, or that
// hold what an earlier call wrote (written[k], which it updates): the
// counts of a backfill grow as its backends answer. Minutes no app had a
// sample in stay empty. asked is how many apps the counts are over. It
// returns how many buckets it filled that no earlier call had.
func (h *minuteHistory) fillPast(first int64, minutes, written [][2]int32, asked int, now time.Time) int {
	cur := now.Unix() / 60
	h.mu.Lock()
	defer h.mu.Unlock()
	filled := 0
	for k, c := range minutes {
		min := first + int64(k)
		if c[0]+c[1] == 0 || min <= cur-historyMinutes || min >= cur || !fitsMinute(min) {
			continue
		}
		b := &h.buckets[mod(min, historyMinutes)]
		w := written[k]
		if c == w {
			continue
		}
		ours := w != [2]int32{} && *b == pastBucket(min, w, asked)
		if b.seen && int64(b.minute) >= min && !ours {
			continue // observed
		}
		*b = pastBucket(min, c, asked)
		written[k] = c
		if !ours {
			filled++
		}
	}
	return filled
}

// pastBucket is the bucket of minute min that the backfill learned c (up,
// down) of, over asked apps.
func pastBucket(min int64, c [2]int32, asked int) minuteBucket {
	return minuteBucket{minute: int32(min), up: uint32(c[0]), down: uint32(c[1]), lastUp: c[0],
		lastDown: c[1], lastU: int32(max(0, asked-int(c[0])-int(c[1]))), seen: true}
}

// gaps returns the minutes of [from, to) that fall in a gap of the
// observations longer than cadence minutes (the live cycles' spacing: the
// minutes between two cycles are not a gap), and spans covering them, where
// spans less than an hour apart are merged to save queries.
func gaps(seen map[int64]bool, from, to time.Time, cadence int64) (want map[int64]bool, spans [][2]time.Time) {
	want = make(map[int64]bool)
	first, last := from.Unix()/60, to.Unix()/60
	run := int64(-1)
	for min := first; min <= last; min++ {
		if min < last && !seen[min] {
			if run < 0 {
				run = min
			}
			continue
		}
		if run < 0 {
			continue
		}
		if min-run > cadence || run == first || min == last {
			for g := run; g < min; g++ {
				want[g] = true
			}
			if n := len(spans); n > 0 && run-spans[n-1][1].Unix()/60 < 60 {
				spans[n-1][1] = time.Unix(min*60, 0)
			} else {
				spans = append(spans, [2]time.Time{time.Unix(run*60, 0), time.Unix(min*60, 0)})
			}
		}
		run = -1
	}
	return want, spans
}

// chunks splits [start, end) into ranges of at most steps steps (capped at
// backfill.MaxSteps). Each range's End is its last step (a range includes both
// ends).
func chunks(start, end time.Time, step time.Duration, steps int) []PastRange {
	steps = min(steps, backfill.MaxSteps)
	span := time.Duration(steps) * step
	var out []PastRange
	for from := start; from.Before(end); from = from.Add(span) {
		to := timeMin(end, from.Add(span)).Add(-step)
		if to.Before(from) {
			break
		}
		out = append(out, PastRange{Start: from, End: to, Step: step})
	}
	return out
}

func timeMin(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// sameSource reports whether a and b are the same source; sources of
// types that cannot be compared never are.
func sameSource(a, b Source) bool {
	ta := reflect.TypeOf(a)
	return ta == reflect.TypeOf(b) && ta.Comparable() && a == b
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

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
		if !m.sleepUntil(ctx, m.clock.Now().Add(backfill.Backoff(round, BackfillRetryMin, BackfillRetryMax))) {
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
	return m.tryPastIn(ctx, m.cycles.Run, j, res, ask)
}

// tryPastIn is tryPast through run, one of the gate's ways of giving way
// (cyclegate.Gate.Run, Try, Whole); a question a cycle interrupted in
// Try is not asked again here: its caller asks it in parts.
func (m *Monitor) tryPastIn(ctx context.Context, run func(context.Context, func(context.Context) error) error,
	j *pastJob, res *pastResult, ask func(context.Context) error) error {
	backend := j.backend
	var err error
	for range backfillTries {
		err = run(ctx, func(ctx context.Context) error {
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
		if err == nil || ctx.Err() != nil || tooLarge(err) || errors.Is(err, ErrPastRefused) || errors.Is(err, cyclegate.ErrCycleBegan) {
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
	refused     *prometheus.CounterVec
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
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "availmon_backfill_questions_refused_total",
			Help: "Backfill questions a backend refused as bad input (ErrPastRefused); their spans are left unfilled, not asked again.",
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
	return []prometheus.Collector{b.pending, b.failures, b.refused, b.ratio, b.appsPending}
}

// giveUpPast reports whether err is a backend's refusal of a backfill
// question over r as bad input (ErrPastRefused), and if so logs it and
// counts it: asked again, the same question is refused again, so the
// backfill leaves its span unfilled (unknown, as if nobody had asked)
// rather than asking it with backoff forever. A backend down or timing out
// is not a refusal: it is asked again, with backoff.
func (m *Monitor) giveUpPast(backend string, err error, r PastRange, what string) bool {
	if err == nil || !errors.Is(err, ErrPastRefused) {
		return false
	}
	m.bf.metrics.refused.WithLabelValues(backend).Inc()
	m.log.Error("a backend refuses a backfill question as bad input; its span is left unfilled", "backend", backend,
		"question", what, "from", r.Start.UTC(), "to", r.End.UTC(), "step", r.Step, "apps", len(r.Apps),
		"err", errtext.Truncate(err.Error(), maxErrorText))
	return true
}

// refusedFinest is giveUpPast for a question of the record's refinement
// over r, of apps apps and windows windows: one whose refusal says it is
// too large is asked in parts (backfill.ErrTooLarge) while it has parts,
// and given up only as a single window of one app read at one instant,
// which no part makes smaller.
func (m *Monitor) refusedFinest(backend string, err error, r backfill.Range, apps, windows int) bool {
	if tooLarge(err) && (apps > 1 || windows > 1 || r.Window > r.Resolution) {
		return false
	}
	return m.giveUpPast(backend, err, PastRange(r), "states")
}
