package availmon

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
)

// The backfill asks a backend for the past one minute apart (the history's
// finest bucket), with at most backfillParallel queries in flight, so that
// the backend keeps most of its capacity for the cycles.
const (
	backfillStep     = time.Minute
	backfillParallel = 2
	// backfillChunk is the steps of one query: six hours. A query of 200
	// expressions over 10,000 steps (the most Prometheus allows) passed
	// Prometheus's 2m query timeout on a loaded machine, and one over a day
	// took 70 s there; six hours each keeps every query well inside it,
	// for the same total work.
	backfillChunk = 6 * 60
	// backfillTries: a query that failed (a timeout, a restart) is asked
	// once more before its buckets are left empty.
	backfillTries = 2
)

// pastResult is what a backfill learned, applied in one go at its end: the
// buckets it fills must not count as observed while it still runs.
type pastResult struct {
	mu      sync.Mutex
	asked   int                   // apps asked about
	minutes map[int64][2]int      // unix minute -> apps up, down
	apps    map[string]*dayWindow // per app name: checks per hour, last 24h
	queries atomic.Int64
	failed  atomic.Int64
}

// startBackfill starts, once per Monitor and only with Options.Backfill, a
// goroutine that fills the history this monitor has no observation for
// from the backends that can tell the past. It returns what Run calls on
// its way out: stop the backfill and wait for it.
func (m *Monitor) startBackfill(ctx context.Context) (stop func()) {
	if !m.backfill || !m.backfillStarted.CompareAndSwap(false, true) {
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

// pastJob is one query of the backfill.
type pastJob struct {
	src    pastSource
	apps   []App
	r      v1.Range
	counts bool // minute counts rather than per-app states
}

func (m *Monitor) runBackfill(ctx context.Context) {
	began := time.Now()
	now := m.clock.Now()
	end := now.Truncate(time.Minute) // the current minute is the cycles'
	m.cycleMu.Lock()
	p := m.plan
	seen := m.hist.seenSince(end.Add(-30 * 24 * time.Hour))
	m.cycleMu.Unlock()

	dayStart := time.Unix((now.Unix()/3600-23)*3600, 0)
	cadence := int64((m.Interval() + time.Minute - 1) / time.Minute)
	want, spans := gaps(seen, end.Add(-30*24*time.Hour), end, cadence)
	res := &pastResult{minutes: map[int64][2]int{}, apps: map[string]*dayWindow{}}
	var jobs []pastJob
	for _, batch := range p.batches {
		src, ok := p.backends[p.backendOf[batch[0]]].Source.(pastSource)
		if !ok {
			continue
		}
		apps := make([]App, len(batch))
		for i, ai := range batch {
			apps[i] = p.apps[ai]
		}
		res.asked += len(apps)
		for _, sp := range spans {
			for _, r := range chunks(sp[0], sp[1], backfillStep, backfillChunk) {
				jobs = append(jobs, pastJob{src: src, apps: apps, r: r, counts: true})
			}
			if sp[1].After(dayStart) {
				for _, r := range chunks(later(sp[0], dayStart), sp[1], backfillStep, backfillChunk) {
					jobs = append(jobs, pastJob{src: src, apps: apps, r: r})
				}
			}
		}
	}
	if len(jobs) == 0 {
		return
	}
	m.log.Info("backfill started: asking the backends for the history this instance did not see",
		"apps", res.asked, "queries", len(jobs), "from", spans[0][0].UTC(), "to", end.UTC())
	m.runPastJobs(ctx, jobs, res, want)
	if ctx.Err() != nil {
		m.log.Info("backfill stopped before its end; nothing of it applied")
		return
	}
	filled := m.applyPast(res, m.clock.Now())
	m.log.Info("backfill done", "minutes_filled", filled, "apps", res.asked, "queries", res.queries.Load(),
		"failed_queries", res.failed.Load(), "duration", time.Since(began).Round(time.Millisecond))
}

// runPastJobs runs jobs, at most backfillParallel at a time.
func (m *Monitor) runPastJobs(ctx context.Context, jobs []pastJob, res *pastResult, want map[int64]bool) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(backfillParallel, len(jobs)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				j := int(next.Add(1) - 1)
				if j >= len(jobs) {
					return
				}
				m.runPastJob(ctx, jobs[j], res, want)
			}
		})
	}
	wg.Wait()
}

func (m *Monitor) runPastJob(ctx context.Context, j pastJob, res *pastResult, want map[int64]bool) {
	if j.counts {
		var c map[int64][2]int
		err := m.tryPast(ctx, res, func() (err error) { c, err = j.src.pastCounts(ctx, j.apps, j.r); return err })
		if err != nil {
			m.pastFailed(ctx, res, err)
			return
		}
		res.mu.Lock()
		defer res.mu.Unlock()
		for ts, n := range c {
			if !want[ts/60] {
				continue
			}
			t := res.minutes[ts/60]
			t[0], t[1] = t[0]+n[0], t[1]+n[1]
			res.minutes[ts/60] = t
		}
		return
	}
	var states []map[int64]bool
	err := m.tryPast(ctx, res, func() (err error) { states, err = j.src.pastStates(ctx, j.apps, j.r); return err })
	if err != nil {
		m.pastFailed(ctx, res, err)
		return
	}
	res.mu.Lock()
	defer res.mu.Unlock()
	for i, st := range states {
		w := res.apps[j.apps[i].Name]
		if w == nil {
			w = new(dayWindow)
			res.apps[j.apps[i].Name] = w
		}
		for ts, up := range st {
			if want[ts/60] {
				w.addPast(ts, up)
			}
		}
	}
}

// tryPast runs ask up to backfillTries times while it fails.
func (m *Monitor) tryPast(ctx context.Context, res *pastResult, ask func() error) error {
	var err error
	for range backfillTries {
		res.queries.Add(1)
		if err = ask(); err == nil || ctx.Err() != nil {
			return err
		}
	}
	return err
}

func (m *Monitor) pastFailed(ctx context.Context, res *pastResult, err error) {
	if ctx.Err() != nil {
		return
	}
	res.failed.Add(1)
	m.log.Warn("backfill query failed; its buckets stay empty", "err", err)
}

// applyPast fills the minute buckets nobody observed and adds the past
// checks to the 24h counters, by app name, under the cycle lock, and
// publishes a snapshot with them. It returns how many minutes it filled.
func (m *Monitor) applyPast(res *pastResult, now time.Time) int {
	m.cycleMu.Lock()
	defer m.cycleMu.Unlock()
	filled := m.hist.fillPast(res.minutes, res.asked, now)
	p, st := m.plan, m.state
	for name, w := range res.apps {
		i, ok := p.appIndex[name]
		if !ok {
			continue // removed while the backfill ran
		}
		for _, slot := range w {
			if slot.c.total() == 0 {
				continue
			}
			st.appDay[i].addHour(slot.hour, slot.c)
			st.locDay[p.appLocs[i]].addHour(slot.hour, slot.c)
			st.sysDay.addHour(slot.hour, slot.c)
		}
	}
	m.publish(now, m.snap.Load().eventSeq)
	return filled
}

// addPast counts one past state at unix second ts. Past checks have no
// response time: rtN is left alone.
func (w *dayWindow) addPast(ts int64, up bool) {
	h := ts / 3600
	slot := &w[mod(h, 24)]
	if slot.hour != h {
		slot.hour, slot.c = h, counts{}
	}
	if up {
		slot.c.up++
	} else {
		slot.c.down++
	}
}

// addHour adds c to hour's slot; a slot that holds an older hour is
// replaced, one that holds a newer hour is left alone (hour has left the
// window).
func (w *dayWindow) addHour(hour int64, c counts) {
	slot := &w[mod(hour, 24)]
	switch {
	case slot.hour == hour:
		slot.c.merge(c)
	case slot.hour < hour:
		slot.hour, slot.c = hour, c
	}
}

// seenSince returns the minutes from since on that hold an observation.
func (h *minuteHistory) seenSince(since time.Time) map[int64]bool {
	from := since.Unix() / 60
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make(map[int64]bool)
	for _, b := range h.buckets {
		if b.seen && b.minute >= from {
			out[b.minute] = true
		}
	}
	return out
}

// fillPast writes past minute counts into buckets that hold no observation
// of their minute; minutes no app had a sample in stay empty. asked is how
// many apps the counts are over.
func (h *minuteHistory) fillPast(minutes map[int64][2]int, asked int, now time.Time) int {
	cur := now.Unix() / 60
	h.mu.Lock()
	defer h.mu.Unlock()
	filled := 0
	for min, c := range minutes {
		if c[0]+c[1] == 0 || min <= cur-historyMinutes || min >= cur {
			continue
		}
		b := &h.buckets[mod(min, historyMinutes)]
		if b.seen && b.minute >= min {
			continue
		}
		*b = minuteBucket{minute: min, up: int64(c[0]), down: int64(c[1]), lastUp: int32(c[0]),
			lastDown: int32(c[1]), lastU: int32(max(0, asked-c[0]-c[1])), seen: true}
		filled++
	}
	return filled
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

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
