package availmon

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/availmon/availmon/internal/backfill"
	"github.com/availmon/availmon/internal/cyclegate"
	"github.com/availmon/availmon/internal/errtext"
	"github.com/availmon/availmon/internal/jsontime"
	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/timeline"
)

// backfillRun is what the monitor keeps of its backfill.
type backfillRun struct {
	enabled bool
	timeout time.Duration
	metrics backfillMetrics
	// started: the backfill runs once per Monitor, in its first Run.
	started  atomic.Bool
	progress backfillProgress
}

// backfillProgress is how far the backfill of the record has come, as
// /api/status and the metrics tell it.
type backfillProgress struct {
	mu          sync.Mutex
	state       string // running, waiting, done; empty before the backfill starts
	from, to    time.Time
	appsTotal   int
	appsDone    int
	secondsLeft float64
	ratio       float64
}

// backfillStatusJSON is /api/status's data.backfill.
type backfillStatusJSON struct {
	State       string         `json:"state"`
	Progress    float64        `json:"progress"`
	From        *jsontime.Time `json:"from"`
	To          *jsontime.Time `json:"to"`
	AppsTotal   int            `json:"apps_total"`
	AppsDone    int            `json:"apps_done"`
	SecondsLeft float64        `json:"seconds_left"`
}

func (b *backfillRun) status() *backfillStatusJSON {
	p := &b.progress
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == "" && !b.enabled {
		return nil
	}
	out := &backfillStatusJSON{State: p.state, Progress: p.ratio, AppsTotal: p.appsTotal, AppsDone: p.appsDone,
		SecondsLeft: p.secondsLeft}
	if out.State == "" {
		out.State = "running"
	}
	if !p.from.IsZero() {
		f, t := jsontime.Time(p.from), jsontime.Time(p.to)
		out.From, out.To = &f, &t
	}
	return out
}

// set records the progress of jobs over [from, to) in state, and sets
// the metrics. A job not planned yet has answered nothing; a job done
// counts its apps only (its plan is dropped).
func (b *backfillRun) set(state string, from, to time.Time, jobs []*stateJob) {
	p := &b.progress
	p.mu.Lock()
	defer p.mu.Unlock()
	p.state, p.from, p.to = state, from, to
	p.appsTotal, p.appsDone, p.secondsLeft = 0, 0, 0
	span := to.Sub(from).Seconds()
	total := 0.0
	for _, j := range jobs {
		n := j.apps
		p.appsTotal += n
		total += float64(n) * span
		if j.finished {
			p.appsDone += n
			continue
		}
		f := 0.0
		if len(j.queries) > 0 {
			f = (float64(j.next) + j.done) / float64(len(j.queries))
		}
		p.secondsLeft += float64(n) * span * (1 - f)
	}
	p.ratio = 1
	if total > 0 && state != "done" {
		p.ratio = min(0.99, 1-p.secondsLeft/total)
	}
	b.metrics.ratio.Set(p.ratio)
	b.metrics.appsPending.Set(float64(p.appsTotal - p.appsDone))
}

// planStates sets out the record's backfill: [from, to) is the ledger's
// retention up to the current minute, need the UTC days of it in which
// some app's time is unknown (nobody observed it, a restart's gap), and
// one job per backend that can tell the past, none when no day is
// unknown. A job's queries are planned when its turn comes (planJob):
// at 100,000 apps a backend's plan holds some 18 MB of pointers, which
// the GC's pacing doubles in the process's memory, and only the backend
// being asked needs its own.
func (m *Monitor) planStates() (jobs []*stateJob, from, to time.Time, need map[int64]bool) {
	m.cycleMu.Lock()
	defer m.cycleMu.Unlock()
	now := m.clock.Now()
	to = now.Truncate(time.Minute)
	from = to.Add(-m.ledger.Retention()).Truncate(24 * time.Hour)
	need = m.unknownDays(from, to)
	if len(need) == 0 {
		return nil, from, to, need
	}
	p := m.plan
	for bi, be := range p.backends {
		if _, ok := be.Source.(PastSource); !ok {
			continue
		}
		n := 0
		for _, b := range p.backendOf {
			if b == bi {
				n++
			}
		}
		if n > 0 {
			jobs = append(jobs, &stateJob{pastJob: pastJob{backend: be.Name}, apps: n, count: &pastResult{}})
		}
	}
	return jobs, from, to, need
}

// planJob plans job j's queries, those of its backend's apps now that are
// PastStaters; a backend gone or that no longer tells the past leaves it
// done with none, as does one whose queries tell no states (its apps then
// count for nothing in the progress).
func (m *Monitor) planJob(j *stateJob) {
	m.cycleMu.Lock()
	defer m.cycleMu.Unlock()
	j.planned = true
	p := m.plan
	bi, ok := p.backendIndex(j.backend)
	var src PastSource
	if ok {
		src, ok = p.backends[bi].Source.(PastSource)
	}
	if !ok {
		j.finished = true
		return
	}
	apps := p.appsOf(bi)
	j.src, j.reports = p.backends[bi].Source, reportsRequests(p.backends[bi].Source)
	j.names = make([]string, len(apps))
	for i, a := range apps {
		j.names[i] = a.Name
	}
	for _, q := range src.PlanPast(apps) {
		if st, ok := q.(PastStater); ok {
			j.queries = append(j.queries, st)
		}
	}
	if len(j.queries) == 0 {
		j.apps, j.names, j.finished = 0, nil, true
	}
}

// release drops what job j planned once it is done: its progress is its
// count of apps.
func (j *stateJob) release() {
	j.finished, j.queries, j.names, j.src = true, nil, nil, nil
}

// unknownDays are the UTC days of [from, to) in which some app's time is
// unknown in the ledger.
func (m *Monitor) unknownDays(from, to time.Time) map[int64]bool {
	var bounds []time.Time
	for d := from; d.Before(to); d = d.Add(24 * time.Hour) {
		bounds = append(bounds, d)
	}
	bounds = append(bounds, to)
	sum := make([]timeline.Totals, len(bounds)-1)
	book := m.ledger.Book(to)
	for i := range book.Current(ledger.App) {
		book.View(ledger.App, i).AddSteps(sum, bounds)
	}
	need := make(map[int64]bool)
	for i, t := range sum {
		if t.Unknown > 0 {
			need[bounds[i].Unix()] = true
		}
	}
	return need
}

// backfillRecord fills the record of availability over time, backend
// after backend, waiting with backoff while a backend fails.
func (m *Monitor) backfillRecord(ctx context.Context) {
	began := time.Now()
	jobs, from, to, need := m.planStates()
	res := backfill.Resolution(m.Interval())
	m.bf.set("running", from, to, jobs)
	for round := 0; ; round++ {
		failed := false
		for _, j := range jobs {
			if err := m.advanceStates(ctx, j, from, to, res, need, jobs); err != nil && ctx.Err() == nil {
				failed = true
				m.warnStarted(backfillKey(j.backend), m.clock.Now(),
					"backfill queries to a backend fail; asking again with backoff until they answer",
					"backend", j.backend, "err", errtext.Truncate(err.Error(), maxErrorText))
			}
			if ctx.Err() != nil {
				return
			}
		}
		if !failed {
			m.bf.set("done", from, to, jobs)
			var sent int64
			for _, j := range jobs {
				sent += j.count.queries.Load()
			}
			m.log.Info("backfill of the record of availability done", "from", from.UTC(), "to", to.UTC(),
				"backends", len(jobs), "requests", sent, "duration", time.Since(began).Round(time.Millisecond))
			return
		}
		m.bf.set("waiting", from, to, jobs)
		if !m.sleepUntil(ctx, m.clock.Now().Add(backfill.Backoff(round, BackfillRetryMin, BackfillRetryMax))) {
			return
		}
		m.bf.set("running", from, to, jobs)
	}
}

// advanceStates asks what is left of job j's queries, in order, planning
// them first when its turn comes; once they have all answered, it drops
// them.
func (m *Monitor) advanceStates(ctx context.Context, j *stateJob, from, to time.Time, res time.Duration,
	need map[int64]bool, all []*stateJob) error {
	if !j.planned {
		m.planJob(j)
	}
	if j.finished {
		return nil
	}
	var err error
	if joined(j.queries) {
		err = m.advanceJoined(ctx, j, from, to, res, need, all)
	} else {
		err = m.advanceEach(ctx, j, from, to, res, need, all)
	}
	if err == nil {
		j.release()
		m.bf.set("running", from, to, all)
	}
	return err
}

// advanceEach asks what is left of job j's queries one after the other.
func (m *Monitor) advanceEach(ctx context.Context, j *stateJob, from, to time.Time, res time.Duration,
	need map[int64]bool, all []*stateJob) error {
	for j.next < len(j.queries) {
		q := j.queries[j.next]
		start, found, err := m.dataStart(ctx, j, q, from, to)
		if err != nil {
			return err
		}
		if !found {
			j.next, j.done = j.next+1, 0
			m.bf.set("running", from, to, all)
			continue
		}
		err = m.askStates(ctx, j, q, start, to, res, need, func(f float64) {
			j.done = f
			m.bf.set("running", from, to, all)
		})
		if err != nil {
			return err
		}
		j.next, j.done = j.next+1, 0
		m.bf.set("running", from, to, all)
	}
	return nil
}

// joined reports whether the finer questions of qs can be asked together,
// through the first: every other query joins it (PastJoiner).
func joined(qs []PastStater) bool {
	jq, ok := qs[0].(PastJoiner)
	if !ok || len(qs) < 2 {
		return false
	}
	for _, q := range qs[1:] {
		if !jq.JoinsPast(q) {
			return false
		}
	}
	return true
}

// advanceJoined asks job j's queries, which join (joined), as one
// refinement: each query's whole days on its own, from where the first
// query's data begins, then the mixed windows of all of them together.
// A failure asks them all again: what the refinement learnt is applied
// once it is whole. Progress counts the queries whose days are answered.
func (m *Monitor) advanceJoined(ctx context.Context, j *stateJob, from, to time.Time, res time.Duration,
	need map[int64]bool, all []*stateJob) error {
	var qs []PastStater
	start := to
	for _, q := range j.queries {
		first, found, err := m.dataStart(ctx, j, q, from, to)
		if err != nil {
			return err
		}
		if found {
			start = timeMin(start, first)
			qs = append(qs, q)
		}
	}
	if len(qs) > 0 {
		yields := 0
		parts := make([]backfill.Part, len(qs))
		for i, q := range qs {
			parts[i] = m.statePart(ctx, j, q, true, &yields)
		}
		join := m.statePart(ctx, j, j.queries[0], false, &yields)
		a, err := backfill.RefineJoined(start, to, res, need, parts, join, func(part int, f float64) {
			j.done = float64(part) + f // the queries' worth answered, as j.next counts them
			m.bf.set("running", from, to, all)
		})
		if err != nil {
			j.done = 0
			return err
		}
		m.applyStates(j, a)
	}
	j.next, j.done = len(j.queries), 0
	m.bf.set("running", from, to, all)
	return nil
}

// dataStart is where q's data in [from, to] begins, found by its probe
// (a step early: the data may begin up to a step before the probe that saw
// it); found is false when it has none. A query without a probe is asked
// from from.
func (m *Monitor) dataStart(ctx context.Context, j *stateJob, q PastStater, from, to time.Time) (time.Time, bool, error) {
	pq, ok := q.(PastQuery)
	if !ok {
		return from, true, nil
	}
	var first time.Time
	var found bool
	probe := recordProbe(from, to)
	err := m.tryPast(ctx, &j.pastJob, j.count, func(ctx context.Context) (err error) {
		first, found, err = pq.Probe(ctx, probe)
		return err
	})
	if m.giveUpPast(j.backend, err, probe, "probe") {
		return time.Time{}, false, nil
	}
	if err != nil || !found {
		return time.Time{}, false, err
	}
	return later(from, first.Add(-probe.Step)), true, nil
}

// recordProbeSteps bounds the steps of the probe that finds where a
// query's data begins over the record's retention: the probe counts the
// query's apps at every step (grouped by app, the costly way), so at an
// hour's step over 400 days (9,600 steps) it took Prometheus some 20 s
// for a query of 2,500 apps, a fifth of the record's whole backfill of 90
// days. The questions begin on whole days anyway, so a step of 9.6 hours
// loses nothing but data shorter than it that ended before now.
const recordProbeSteps = 1_000

// recordProbe is the probe of the record's backfill over [from, to): at
// most recordProbeSteps steps, at least backfillProbe apart, ending on
// to, so that an app with data now is found whatever the step.
func recordProbe(from, to time.Time) PastRange {
	step := max(backfillProbe, to.Sub(from)/recordProbeSteps)
	return PastRange{Start: to.Add(-to.Sub(from) / step * step), End: to, Step: step}
}

// stateJob is the record's backfill of one backend: its planned queries
// that are PastStaters, asked one after the other. They are planned when
// the job's turn comes and dropped once they have all answered; a job
// that failed keeps them until it is asked again.
type stateJob struct {
	pastJob
	apps     int          // the backend's apps: its share of the progress
	queries  []PastStater // nil until planned, and once done
	names    []string     // the backend's apps, by their index in PlanPast's apps
	count    *pastResult  // counts the requests sent
	next     int          // the first query not answered yet
	done     float64      // the part of the current query answered (its first level)
	planned  bool         // planJob has run
	finished bool         // every query answered, or none to ask
}

// applyStates fills the ledger with what a backend's job learnt, by the current
// plan's app indexes (a reconfiguration may have moved or removed apps).
func (m *Monitor) applyStates(j *stateJob, a *backfill.Answers) {
	if len(a.Spans) == 0 {
		return
	}
	m.cycleMu.Lock()
	defer m.cycleMu.Unlock()
	p := m.plan
	past := ledger.Past{From: a.From, To: a.To, Apps: make([][]timeline.Span, len(p.apps)),
		Service: func(si int, state func(int) timeline.State) timeline.State {
			v := p.ctl.services[si].evaluate(func(ai int) Status { return statusOf(state(ai)) })
			return serviceTimelineState(v.state)
		}}
	for app, spans := range a.Spans {
		if i, ok := p.appIndex[j.names[app]]; ok {
			past.Apps[i] = spans
		}
	}
	m.ledger.Fill(past)
	m.pastChanged()
	m.publish(m.clock.Now(), m.snap.Load().eventSeq)
}

func statusOf(s timeline.State) Status {
	switch s {
	case timeline.Up:
		return StatusUp
	case timeline.Down:
		return StatusDown
	}
	return StatusUnavailable
}

// askStates asks one query of job j down its levels from the first data
// at start, and applies what it learnt. It returns the first error of a
// question that failed twice: the caller waits and asks the query again.
func (m *Monitor) askStates(ctx context.Context, j *stateJob, q PastStater, from, to time.Time, res time.Duration,
	need map[int64]bool, onLevel func(float64)) error {
	yields := 0
	p := m.statePart(ctx, j, q, true, &yields)
	a, err := backfill.Refine(from, to, res, p.Sizer, need, p.Ask, onLevel)
	if err != nil {
		return err
	}
	m.applyStates(j, a)
	return nil
}

// statePart is how job j asks q's questions. scoped sizes a question of
// every app by q's apps when q tells them (PastScope), else by the
// backend's. yields counts the questions interrupted one after the other,
// shared by the parts of one refinement.
func (m *Monitor) statePart(ctx context.Context, j *stateJob, q PastStater, scoped bool, yields *int) backfill.Part {
	sz := &backfill.Sizer{Budget: backfill.Budget, Apps: len(j.names), Most: backfill.AppInstants,
		Wait: func(wall time.Duration) { m.waitGap(ctx, wall) }}
	if sc, ok := q.(PastScope); ok && scoped {
		sz.Scope = ownApps(sc.PastApps(), len(j.names))
		sz.Apps = len(sz.Scope)
	}
	ask := func(r backfill.Range, take func(backfill.State)) error {
		sz.Target = m.cycleGap() / 2
		began := time.Now()
		run := m.cycles.Try
		if *yields >= cyclegate.MaxYields {
			run = m.cycles.Whole // cycles back to back: the backfill must advance too
		}
		var got []backfill.State
		err := m.tryPastIn(ctx, run, &j.pastJob, j.count, func(ctx context.Context) error {
			got = got[:0] // an attempt that failed may have told part of its answer
			return q.States(ctx, PastRange(r), func(st PastState) {
				if st.App >= 0 && st.App < len(j.names) { // a faulty source's stray app is dropped
					got = append(got, backfill.State(st))
				}
			})
		})
		apps := len(r.Apps)
		if r.Apps == nil {
			apps = sz.Apps
		}
		windows := int(r.End.Sub(r.Start)/r.Step) + 1
		m.log.Debug("backfill question", "backend", j.backend, "apps", apps, "windows", windows, "window", r.Window,
			"app_instants", apps*windows*int(r.Window/r.Resolution), "wall", time.Since(began).Round(time.Millisecond), "err", err)
		switch {
		case err == nil:
			*yields = 0
			for _, st := range got {
				take(st)
			}
		case errors.Is(err, cyclegate.ErrCycleBegan):
			*yields++
			return fmt.Errorf("%w: %w", backfill.ErrInterrupted, err)
		case m.refusedFinest(j.backend, err, r, apps, windows):
			return nil
		case tooLarge(err):
			m.warnStarted(tooLargeKey(j.backend), m.clock.Now(),
				"a backend refuses backfill questions as too large; asking them in parts",
				"backend", j.backend, "err", errtext.Truncate(err.Error(), maxErrorText))
			return fmt.Errorf("%w: %w", backfill.ErrTooLarge, err)
		}
		return err
	}
	return backfill.Part{Sizer: sz, Ask: ask}
}

// ownApps is apps without the indexes a source cannot have been given
// (PlanPast's apps are n): a faulty source's stray app is never asked.
func ownApps(apps []int, n int) []int {
	return slices.DeleteFunc(slices.Clone(apps), func(i int) bool { return i < 0 || i >= n })
}

// waitGap waits, when a backfill question expected to take wall would not
// end before the next cycle begins, until the next cycle ends: begun late
// in the gap it would be interrupted, its work lost. It waits at most a
// gap, in case no cycle comes (the gap was two cycles close by chance).
func (m *Monitor) waitGap(ctx context.Context, wall time.Duration) {
	gap := m.cycleGap()
	began := m.cycles.Began()
	if began.IsZero() || wall >= gap || time.Since(began)+wall < gap {
		return
	}
	t := time.NewTimer(gap)
	defer t.Stop()
	select {
	case <-m.cycles.Ended():
	case <-ctx.Done():
	case <-t.C:
	}
}

// cycleGap is the time between cycles: the last gap seen, as cycles may
// come closer than the interval (Scrape called between them) or later (a
// slow cycle), but at least minCycleGap (two cycles close by chance, as
// the first of Run after a Scrape, say nothing of the pace); the interval
// before two cycles have begun.
func (m *Monitor) cycleGap() time.Duration {
	if g := m.cycles.Gap(); g > 0 {
		return min(max(g, minCycleGap), m.Interval())
	}
	return m.Interval()
}

// minCycleGap is the least gap between cycles the backfill sizes its
// questions to.
const minCycleGap = time.Second

// tooLarge says whether err is a backend's refusal of a question as too
// large: Prometheus's query.max-samples ("query processing would load too
// many samples into memory"), VictoriaMetrics' search.maxSamplesPerQuery
// and its limits on points per series, Prometheus's 11,000 steps of one
// range query. Asked again, such a question is refused again.
func tooLarge(err error) bool {
	msg := err.Error()
	for _, s := range []string{"too many samples", "maxSamplesPerQuery", "maxPointsPerTimeseries", "maxPointsSubqueryPerTimeseries",
		"exceeded maximum resolution"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// tooLargeKey is the condition of a backend refusing questions as too
// large: logged once, as the backfill asks them in parts from then on.
func tooLargeKey(backend string) string { return "backfill-too-large\x00" + backend }
