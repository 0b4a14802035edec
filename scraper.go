package availmon

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/availmon/availmon/internal/errtext"
	"github.com/availmon/availmon/internal/history"
)

// ErrAlreadyRunning is returned by Run when another Run of the same Monitor
// has not returned yet.
var ErrAlreadyRunning = errors.New("availmon: monitor is already running")

// Run checks every app at once and then every interval, until ctx ends. It
// returns nil when ctx ends, after the cycle in progress (if any) has
// stopped and /api/ws clients have been sent the shutdown event and closed
// (waiting at most Options.WSWriteTimeout for them); no goroutine it started
// outlives it. A cycle that takes longer than the interval delays the next
// one rather than overlapping it. The interval is measured on the Clock
// when it is a TimerClock, on Go's timers otherwise.
func (m *Monitor) Run(ctx context.Context) error {
	if !m.run.running.CompareAndSwap(false, true) {
		return ErrAlreadyRunning
	}
	m.run.stopping.Store(false)
	m.run.from.Store(m.events.cursor())
	m.markProgress()
	defer m.run.running.Store(false)
	m.log.Info("monitor started", "apps", len(m.snap.Load().apps), "interval", m.interval.Load().text)

	saver := m.startSaving(ctx)
	stopBackfill := m.startBackfill(ctx)
	timer := m.timers.NewTimer(0)
	defer timer.Stop()
	var last time.Time // when the last cycle started, on m.timers
	for {
		select {
		case <-ctx.Done():
			m.run.stopping.Store(true)
			m.events.append(Event{Type: EventSystem, Time: m.clock.Now(), Name: eventShutdown})
			// Give /api/ws clients the time to receive the shutdown event
			// and a close frame before a program exits after Run.
			if !m.ws.waitIdle(m.ws.writeTimeout) {
				n, _ := m.ws.counts()
				m.log.Warn("websocket clients still connected after the shutdown event", "clients", n)
			}
			stopBackfill()
			saver.finish()
			m.log.Info("monitor stopped")
			return nil
		case <-m.run.intervalChanged:
			// Reschedule from the start of the last cycle with the new interval.
			timer.Stop()
			timer.Reset(m.untilNext(last))
			continue
		case <-timer.C():
		}
		last = m.timers.Now()
		if err := m.Scrape(ctx); err != nil && ctx.Err() == nil {
			m.log.Error("check cycle failed", "err", err)
		}
		// Drain a change that arrived during the cycle: the timer below
		// already uses the latest interval.
		select {
		case <-m.run.intervalChanged:
		default:
		}
		timer.Reset(m.untilNext(last))
	}
}

// untilNext is the wait for the next cycle after one that started at last,
// on m.timers.
func (m *Monitor) untilNext(last time.Time) time.Duration {
	return max(0, last.Add(m.Interval()).Sub(m.timers.Now()))
}

// markProgress tells /health the loop is moving (Monitor.stalled).
func (m *Monitor) markProgress() {
	now := m.timers.Now()
	m.run.progress.Store(&now)
}

// Scrape runs one check cycle now and publishes its result. Run calls it on
// schedule; call it directly to check on demand. Cycles never overlap: a
// call waits for the cycle in progress. When ctx ends during the cycle,
// nothing is published and ctx's error is returned.
func (m *Monitor) Scrape(ctx context.Context) error {
	m.cycleMu.Lock()
	defer m.cycleMu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	m.cycles.Begin()
	defer m.cycles.End()
	start := m.clock.Now()
	d := m.Interval()
	cctx, cancel := context.WithTimeout(ctx, m.cycleTimeout(d))
	defer cancel()

	p := m.plan
	out := &cycleResult{
		batchRes: make([][]Result, len(p.batches)),
		batchErr: make([]error, len(p.batches)),
		found:    make([]Result, len(p.apps)-p.nListed),
		batchAt:  make([]time.Time, len(p.batches)),
		answered: make([]bool, len(p.backends)),
		tried:    make([]bool, len(p.backends)),
		failures: make([]backendFailure, len(p.backends)),
	}
	if !p.batchRuns {
		out.scattered = make([]Result, p.nListed)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	answers := make([]ruleAnswer, len(m.disc.rules))
	for i, rs := range m.disc.rules {
		wg.Go(func() { answers[i] = m.queryRule(cctx, p, rs) })
	}
	for range min(m.cfg.maxParallel, len(p.batches)) {
		wg.Go(func() {
			for {
				b := int(next.Add(1) - 1)
				if b >= len(p.batches) {
					return
				}
				m.checkBatch(cctx, p, b, out)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(m.disc.rules) > 0 {
		p = m.applyDiscovery(p, answers, out)
	}
	m.logFailures(p, out)
	end := m.clock.Now()
	m.commit(p, start, end, out)
	m.markProgress()
	m.log.Debug("check cycle done", "apps", len(p.apps), "duration", end.Sub(start))
	return nil
}

// cycleResult collects what one cycle's workers found. Each worker writes
// only the entries of its own batch; answered and tried are written under mu
// because batches of one backend share them.
//
// The results of a batch that is a run of the plan are the slice its
// Check returned, or its error: a copy of every result into a slice of
// the plan's apps would be 400 kB of a 10,000-app cycle's garbage. Only the
// batches that are not runs (scattered) are copied there.
type cycleResult struct {
	batchRes  [][]Result // per batch that is a run and answered
	batchErr  []error    // per batch that is a run and failed
	scattered []Result   // per listed app; nil when every batch is a run
	found     []Result   // per discovered app
	// When the results came (at): one time per batch, as every app of a
	// batch gets the time of the batch's answer, and one per discovered app,
	// the time of its rule's answer. A time per app cost 24 bytes an app
	// every cycle.
	batchAt  []time.Time
	foundAt  []time.Time
	mu       sync.Mutex
	answered []bool // per backend: some batch returned without error
	tried    []bool
	failures []backendFailure // per backend
}

// batchApps returns the apps of batch: the plan's own list when the batch
// is a run of it, as batches mostly are, rather than a copy of every app
// each cycle (5.6 MB at 50,000 apps, live for the whole cycle).
func batchApps(p *plan, batch []int) []App {
	if isRun(batch) {
		lo, hi := batch[0], batch[0]+len(batch)
		return p.apps[lo:hi:hi]
	}
	apps := make([]App, len(batch))
	for i, ai := range batch {
		apps[i] = p.apps[ai]
	}
	return apps
}

// isRun reports whether idx counts up by one.
func isRun(idx []int) bool {
	for i := 1; i < len(idx); i++ {
		if idx[i] != idx[i-1]+1 {
			return false
		}
	}
	return true
}

// result is app i's result.
func (out *cycleResult) result(p *plan, i int) Result {
	if i >= p.nListed {
		return out.found[i-p.nListed]
	}
	b := p.appBatch[i]
	if res := out.batchRes[b]; res != nil {
		return res[i-p.batches[b][0]]
	}
	if err := out.batchErr[b]; err != nil {
		return Result{Status: StatusUnavailable, Err: err}
	}
	return out.scattered[i]
}

// at is when app i's result came.
func (out *cycleResult) at(p *plan, i int) time.Time {
	if i < p.nListed {
		return out.batchAt[p.appBatch[i]]
	}
	return out.foundAt[i-p.nListed]
}

func (m *Monitor) checkBatch(ctx context.Context, p *plan, bi int, out *cycleResult) {
	batch := p.batches[bi]
	b := p.backendOf[batch[0]]
	apps := batchApps(p, batch)
	ctx, perRequest := m.observeRequests(ctx, p, b)
	start := time.Now()
	res, err := m.callSource(ctx, p.backends[b], apps)
	if !perRequest {
		m.exp.ObserveScrape(p.backends[b].Name, time.Since(start), err)
	}
	if err == nil && ctx.Err() != nil && claimsState(res) {
		// An answer after the cycle's deadline is not one this cycle waited
		// for: the check timed out, whatever the late answer says.
		err = fmt.Errorf("check timed out: answered after the cycle deadline: %w", ctx.Err())
	}
	if err == nil && len(res) != len(apps) {
		err = fmt.Errorf("source returned a result count (%d) unlike the app count (%d)", len(res), len(apps))
	}
	out.batchAt[bi] = m.clock.Now()
	m.keepResults(p, bi, res, err, out)
	out.mu.Lock()
	out.tried[b] = true
	if err == nil {
		out.answered[b] = true
	} else {
		out.failures[b].add(len(apps), err)
	}
	out.mu.Unlock()
}

// keepResults keeps batch bi's results in out, as its Check returned them
// (res, err), made what the monitor records: an invalid status or no
// answer an unavailable app with its reason, a negative response time
// none, an error text bounded. A batch that is a run keeps res itself,
// changed in place only where it needs to be, so that a Source that
// returns well-formed results sees no writes to them.
func (m *Monitor) keepResults(p *plan, bi int, res []Result, err error, out *cycleResult) {
	batch := p.batches[bi]
	run := out.scattered == nil || isRun(batch)
	if err != nil {
		err = boundError(err)
		if run {
			out.batchErr[bi] = err
			return
		}
		for _, ai := range batch {
			out.scattered[ai] = Result{Status: StatusUnavailable, Err: err}
		}
		return
	}
	for i := range res {
		r := &res[i]
		if fixed, ok := wellFormed(*r); !ok {
			*r = fixed
		}
		if !run {
			out.scattered[batch[i]] = *r
		}
	}
	if run {
		out.batchRes[bi] = res
	}
}

// wellFormed returns r as the monitor records it, and whether that is r
// as it is.
func wellFormed(r Result) (Result, bool) {
	ok := true
	if !r.Status.Valid() {
		r, ok = Result{Status: StatusUnavailable, Err: fmt.Errorf("source returned invalid status %q", r.Status)}, false
	}
	if r.ResponseTime < 0 {
		r.ResponseTime, ok = 0, false
	}
	if r.Status == StatusUnavailable && r.Err == nil {
		r.Err, ok = errNoAnswer, false
	}
	if r.Err != nil && len(r.Err.Error()) > maxErrorText {
		r.Err, ok = boundError(r.Err), false
	}
	return r, ok
}

var errNoAnswer = errors.New("no answer")

// claimsState reports whether some result says an app is up or down (or
// unavailable without saying why). A Source that answers after the
// cycle's deadline with only unavailable results and their errors (an
// HTTP probe that says which part of it timed out) has not answered late:
// it reports its own timeout, which is more precise than "answered after
// the cycle deadline".
func claimsState(res []Result) bool {
	for _, r := range res {
		if r.Status != StatusUnavailable || r.Err == nil {
			return true
		}
	}
	return len(res) == 0
}

// callSource keeps a panicking Source from taking the process down. The
// apps' error says only that it panicked and with what: the stack names
// the code and goes to the operator's log, not into the public JSON.
func (m *Monitor) callSource(ctx context.Context, be Backend, apps []App) (res []Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("source panicked: %v", p)
			m.log.Error("source panicked", "backend", be.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	return be.Source.Check(ctx, apps)
}

// commit folds one cycle into the monitor's state and publishes a new
// snapshot. It runs under cycleMu, with the plan the cycle checked.
func (m *Monitor) commit(p *plan, start, end time.Time, out *cycleResult) {
	st, step := m.state, m.followClock(end)
	var evs []Event
	var up, down, unavail int
	inMaint := m.maint.activeApps(p, end) // nil: no window is open
	var texts textInterner
	for i := range p.apps {
		r := out.result(p, i)
		prev := &st.apps[i]
		at := m.checkTime(prev, out.at(p, i), end, step)
		cur := appState{rt: r.ResponseTime}
		cur.setChecked(at)
		var errText string
		if r.Err != nil {
			errText = texts.intern(r.Err.Error(), st.errs[i])
		}
		st.setErr(i, errText)
		d := prev.damper()
		cur.setStatus(d.step(prev.status(), prev.checked(), r.Status, p.ctl.th[i]))
		cur.setDamper(d)
		if !prev.checked() || prev.code != cur.code {
			ev := Event{Type: EventStatusUpdate, Time: at, App: p.apps[i].Name,
				Location: p.apps[i].Location, Status: cur.status()}
			if prev.checked() {
				ev.PreviousStatus = prev.status()
			}
			evs = append(evs, ev)
			m.logAppChange(&p.apps[i], &ev, errText)
		}
		cur.setMaint(inMaint != nil && inMaint[i])
		*prev = cur
		// The history and the per-check counters take the raw result;
		// only the shown state is damped.
		e := history.Check{At: cur.lastCheck, Status: histStatus(r.Status), RT: cur.rt, Err: errText}
		if history.SharesNeighbours(len(p.apps), i, func(j int) (time.Time, time.Duration) {
			return out.at(p, j), out.result(p, j).ResponseTime
		}) {
			st.history[i].AddShared(e, m.cfg.historySize, st.rts)
		} else {
			st.history[i].Add(e, m.cfg.historySize, st.rts)
		}
		if cur.maint() {
			continue // counts neither for nor against availability
		}
		if cur.rt > 0 && m.objs.setPlan == p {
			// Latency objectives count every check that measured a time,
			// a probe's timeout too: it was not answered within.
			m.objs.tracker.Check(m.objs.set, i, at, cur.rt)
		}
		rt := history.WindowRT(cur.rt)
		var measured bool
		st.editDay(i, func(w *history.AppDay) { measured = w.Add(at, histStatus(r.Status), rt) })
		st.locDay[p.appLocs[i]].Add(at, histStatus(r.Status), rt, measured)
		st.sysDay.Add(at, histStatus(r.Status), rt, measured)
		switch cur.code {
		case codeUp:
			up++
		case codeDown:
			down++
		default:
			unavail++
		}
	}
	evs = m.feedLedger(p, out, end, inMaint, evs)
	evs = m.noteBackends(p, out, end, evs)
	st.cycles++
	st.lastCycle = end
	st.lastDuration = end.Sub(start)
	m.hist.add(end, up, down, unavail)
	m.logChangeSummary(evs)
	m.logUnloggedRefusals(m.api.refusals.Expire(end)...)
	// Events go in before the snapshot that reflects them, so a reader that
	// takes a snapshot and then follows the log from its eventSeq misses
	// nothing and sees nothing twice; they are shown to followers after
	// it, so a client told of a change finds it in the API.
	// A config_update appended by SetInterval after ours is not reflected
	// in the snapshot: eventSeq points right after our own events.
	m.publish(end, m.events.add(evs...))
	m.events.show()
}

// noteBackends records which backends answered the cycle, and appends to
// evs an event for each that started or stopped answering.
func (m *Monitor) noteBackends(p *plan, out *cycleResult, end time.Time, evs []Event) []Event {
	st := m.state
	for b, be := range p.backends {
		if !out.tried[b] {
			continue // no apps: nothing learned
		}
		was := st.backends[b]
		now := out.answered[b]
		st.backends[b] = now
		if st.backendSeen[b] && was == now {
			continue
		}
		st.backendSeen[b] = true
		name := "backend_connected"
		if !now {
			name = "backend_disconnected"
		}
		evs = append(evs, Event{Type: EventSystem, Time: end, Name: name, Backend: be.Name})
	}
	return evs
}

// publish builds the snapshot of the current plan and state and swaps it in;
// eventSeq is the first event it does not reflect. It runs under cycleMu (or
// in New, before anyone else can see the monitor).
func (m *Monitor) publish(now time.Time, eventSeq uint64) {
	s := m.state.snapshot(m.plan, m.snapGen, now)
	m.snapGen++
	s.eventSeq = eventSeq
	s.discovery = discoveryHealthOf(m.disc.rules)
	s.pastGen = m.pastGen // before the book: a change after it is a newer generation
	s.book = m.ledger.Book(now)
	evs := m.evaluateObjectives(s, now)
	m.snap.Store(s)
	// After the snapshot: a subscriber's first state is the apps', which
	// these events are not part of.
	m.events.append(evs...)
}

// maxErrorText bounds every error text availmon keeps per app.
const maxErrorText = errtext.Max

// boundError returns err, or when its text is longer than maxErrorText an
// error whose text is cut to that length.
func boundError(err error) error {
	if err == nil || len(err.Error()) <= maxErrorText {
		return err
	}
	return errors.New(errtext.Truncate(err.Error(), maxErrorText))
}

// textInterner keeps one copy of each error text of a cycle. A failing
// backend gives thousands of apps the same error, each made afresh by its
// Error method, and a failing app mostly the same text as last cycle: kept
// as made, every app would hold its own copy of the text every cycle.
type textInterner map[string]string

// intern returns s, as prev when they are equal, or as the first copy of
// it this interner saw.
func (t *textInterner) intern(s, prev string) string {
	if s == prev {
		return prev
	}
	if v, ok := (*t)[s]; ok {
		return v
	}
	if *t == nil {
		*t = make(textInterner)
	}
	(*t)[s] = s
	return s
}

// backendFailure is what one cycle saw fail on one backend.
type backendFailure struct {
	batches int
	apps    int
	first   error
}

func (f *backendFailure) add(apps int, err error) {
	f.batches++
	f.apps += apps
	if f.first == nil {
		f.first = err
	}
}

// logFailures logs a backend whose checks fail when they start failing,
// with the first error, and when every batch answers again, with how many
// cycles failed: a backend down for a day at 5 s costs two lines, not
// 17,280. Meanwhile availmon_backend_connected and
// availmon_scrape_errors_total say so. A DetailedError's Detail, such as
// the server's own message, is logged here and nowhere else.
func (m *Monitor) logFailures(p *plan, out *cycleResult) {
	now := m.clock.Now()
	for b, f := range out.failures {
		name := p.backends[b].Name
		if f.batches == 0 {
			if out.tried[b] {
				m.infoEnded(backendKey(name), now, "backend answering again", "failed_cycles", "backend", name)
			}
			continue
		}
		attrs := []any{"backend", name, "failed_batches", f.batches, "apps", f.apps,
			"err", errtext.Truncate(f.first.Error(), maxErrorText)}
		var de DetailedError
		if errors.As(f.first, &de) {
			attrs = append(attrs, "detail", de.Detail())
		}
		m.warnStarted(backendKey(name), now, "backend check failed", attrs...)
	}
	m.conds.EndUnless(backendKeyPrefix, func(name string) bool {
		_, ok := p.backendIndex(name)
		return ok
	})
}

const backendKeyPrefix = "backend\x00"

func backendKey(backend string) string { return backendKeyPrefix + backend }
