// Package backfill plans the questions the monitor's backfill asks of a
// source's past, apart from the monitor that asks them and applies the
// answers: Refine drives a query's questions from whole days down to the
// resolution, only where a window is mixed, and Backoff spaces the retries
// of a backend that fails.
package backfill

import (
	"errors"
	"slices"
	"sort"
	"time"

	"github.com/availmon/availmon/timeline"
)

// MaxSteps bounds the steps of one question whatever its query's
// MaxSteps: a week of minutes.
const MaxSteps = 10_000

// Range is the steps a question is about, as availmon.PastRange (the
// monitor converts one to the other): Start, Start+Step, ... up to End,
// both included; each step's window [t, t+Window) read at Resolution;
// Apps, when set, the only apps asked about.
type Range struct {
	Start, End time.Time
	Step       time.Duration
	Window     time.Duration
	Resolution time.Duration
	Apps       []int
}

// State is one answer to a question, as availmon.PastState: app App's
// instants over the window [At, At+Window), how many held a value
// (Present) and how many of those said down.
type State struct {
	App                     int
	At                      time.Time
	Window                  time.Duration
	Instants, Present, Down int
}

// The record of availability over time (internal/ledger) is backfilled per app
// from the sources whose past queries are PastStaters, back to the
// ledger's retention or to where the backend's data begins. Questions go
// from coarse to fine: whole UTC days of every app first; a day that is
// not wholly up, wholly down or wholly without data for an app is asked
// again for that app only, by hours, an hour by minutes, and a minute by
// the resolution. Most days of most apps are answered by the first level,
// so the cost grows with the changes, not with the days.
var stateLevels = []time.Duration{24 * time.Hour, time.Hour, time.Minute}

// Budget is the most instants of each app one question of every app of a
// query reads. Prometheus holds two samples per app and instant of
// promsource's expression at its peak (its two sides, present and down;
// measured with stats=all: 39.7 million for 200 apps over 69 days of
// minutes): at promsource's batch of 200 apps, 40 million, below its
// default query.max-samples of 50 million. An app whose expression reads
// several series costs more; Refine splits a question refused as too large.
// It makes the day level of 90 days two questions a query at a minute's
// resolution, and bounds it at a finer one too, where raising it by the
// query's MaxSteps reached hundreds of millions at a second's.
const Budget = 100_000

// Samples bounds the app-instants of a question of the finer levels,
// which asks only the apps whose window was mixed: the samples of each of
// its two sides, which Prometheus holds at once (10 million), a fifth of
// its default query.max-samples (50 million). With it, the hours of the
// 20 apps of a batch of 200 that were down once a day over 90 days are one
// question, where Budget would cut them into 26.
const Samples = 5_000_000

// Resolution is the spacing of the instants a window is read at: the
// cycles' interval when it divides a minute (a cycle reads the app once an
// interval; a backfilled change then lies within one interval of where a
// live instance saw it), else a minute.
func Resolution(interval time.Duration) time.Duration {
	if interval >= time.Second && interval < time.Minute && time.Minute%interval == 0 {
		return interval.Truncate(time.Second)
	}
	return time.Minute
}

// window is one window [at, at+size) of an app's refinement; apps nil
// means every app of the query.
type window struct {
	at   time.Time
	apps []int
}

// stateQuestion is one question's worth of a level: windows of size, a step
// apart, from start to end, asked of apps (nil for all).
type stateQuestion struct {
	start, end time.Time
	size       time.Duration
	apps       []int
}

// Answers gathers what one query's questions learnt.
type Answers struct {
	From, To time.Time
	Spans    map[int][]timeline.Span // by app index in PlanPast's apps
	mixed    map[int64][]int         // by window start (unix): apps to ask at the next level
}

func (a *Answers) put(app int, from, to time.Time, s timeline.State) {
	from, to = later(from, a.From), timeMin(to, a.To)
	if !from.Before(to) {
		return
	}
	l := a.Spans[app]
	if n := len(l); n > 0 && l[n-1].State == s && l[n-1].To.Equal(from) {
		l[n-1].To = to
		return
	}
	a.Spans[app] = append(l, timeline.Span{From: from, To: to, State: s})
}

// take reads one state answer at a level whose windows are size long:
// pure windows become spans, mixed ones windows of the next level.
func (a *Answers) take(st State, size time.Duration, last bool) {
	end := st.At.Add(size)
	switch {
	case st.Present == 0:
	case st.Present == st.Instants && st.Down == 0:
		a.put(st.App, st.At, end, timeline.Up)
	case st.Present == st.Instants && st.Down == st.Instants:
		a.put(st.App, st.At, end, timeline.Down)
	case last:
		// The finest level: the majority of its instants, a single one
		// when the resolution is the cycles' interval.
		s := timeline.Up
		if 2*st.Down >= st.Present {
			s = timeline.Down
		}
		if 2*st.Present >= st.Instants {
			a.put(st.App, st.At, end, s)
		}
	default:
		a.mixed[st.At.Unix()] = append(a.mixed[st.At.Unix()], st.App)
	}
}

// stepInstants is what one step of a question costs the backend, in the
// instants of an app it reads: Prometheus spends some 2.5 µs an app and
// step of promsource's expression and 0.1 µs an app-instant inside it
// (measured at 2,000 apps: a question of minutes 2–2.5 µs an
// app-instant, of days 0.12).
const stepInstants = 25

// requestInstants is what a request costs beyond its steps, in
// app-instants read: some 50 ms of round trip, parsing and planning.
const requestInstants = 500_000

// questions cuts the windows of one level into questions, each one range
// of steps: windows of every app with the next of every app, as long as a
// question reads at most budget instants of each app; windows of some
// apps with the next of some apps when asking the union of their apps
// over the steps between them (those of no mixed window included) costs
// less than a question of its own would, and the question reads at most
// samples app-instants. Either kind reads at most MaxSteps windows. So
// the changed apps' mixed hours of 90 days are a question each, not one
// run of minutes over the 90 days, and a window of every app is not
// joined with the next day's windows of a few.
func questions(ws []window, size, res time.Duration, budget, samples int) []stateQuestion {
	slices.SortFunc(ws, func(a, b window) int { return a.at.Compare(b.at) })
	inst := int(size / res)
	cost := func(apps, steps int) int { return apps * steps * (inst + stepInstants) }
	var out []stateQuestion
	var cur *stateQuestion
	seen := map[int]bool{}
	for _, w := range ws {
		if cur != nil {
			was := int(cur.end.Sub(cur.start)/size) + 1
			steps := int(w.at.Sub(cur.start)/size) + 1
			apps := len(cur.apps)
			for _, a := range w.apps {
				if !seen[a] {
					apps++
				}
			}
			join := false
			switch {
			case steps > MaxSteps:
			case cur.apps == nil && w.apps == nil:
				join = steps*inst <= budget
			case cur.apps != nil && w.apps != nil:
				join = apps*steps*inst <= samples &&
					cost(apps, steps)-cost(len(cur.apps), was) <= cost(len(w.apps), 1)+requestInstants
			}
			if join {
				cur.end = w.at
				for _, a := range w.apps {
					if !seen[a] {
						seen[a] = true
						cur.apps = append(cur.apps, a)
					}
				}
				continue
			}
		}
		out = append(out, stateQuestion{start: w.at, end: w.at, size: size})
		cur = &out[len(out)-1]
		clear(seen)
		if w.apps != nil {
			cur.apps = slices.Clone(w.apps)
			for _, a := range w.apps {
				seen[a] = true
			}
		}
	}
	return out
}

// windowsIn returns the windows of size in [from, to) that begin at or
// after from's alignment; those not wholly before to are left to the
// next level, for every app (returned as partial).
func windowsIn(from, to time.Time, size time.Duration, apps []int) (whole []window, partial []window) {
	for at := from.Truncate(size); at.Before(to); at = at.Add(size) {
		if at.Add(size).After(to) {
			partial = append(partial, window{at: at, apps: apps})
			continue
		}
		whole = append(whole, window{at: at, apps: apps})
	}
	return whole, partial
}

// childWindows are the windows of size (the next level) inside the mixed
// windows of the last level (of parent size) and its partial ones, those
// that reach past the end (extra, each of its apps: nil for every app);
// partial are the new level's that reach past it.
func (a *Answers) childWindows(parent, size time.Duration, extra []window) (out, partial []window) {
	add := func(at time.Time, apps []int) {
		w, p := windowsIn(later(at, a.From.Truncate(size)), timeMin(at.Add(parent), a.To), size, apps)
		out = append(out, w...)
		partial = append(partial, p...)
	}
	keys := make([]int64, 0, len(a.mixed))
	for k := range a.mixed {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		add(time.Unix(k, 0), a.mixed[k])
	}
	for _, w := range extra {
		add(w.at, w.apps)
	}
	clear(a.mixed)
	return out, partial
}

// Refine drives the questions of one query over [from, to), read at
// res: whole days of every app in need first, then each level's mixed
// windows by the next level, as few apps a question as it can. ask puts
// one question and hands each answer to take; onLevel says how much of the
// first level is answered. It returns what the answers learnt, or the
// first error of ask.
func Refine(from, to time.Time, res time.Duration, sz *Sizer, need map[int64]bool,
	ask func(r Range, take func(State)) error, onLevel func(float64)) (*Answers, error) {
	var on func(int, float64)
	if onLevel != nil {
		on = func(_ int, f float64) { onLevel(f) }
	}
	return refine(from, to, res, need, []Part{{Sizer: sz, Ask: ask}}, nil, on)
}

// Part is one query of a backend refined with others (RefineJoined): its
// questions of every app of it are its own, asked through Ask, sized by
// Sizer.
type Part struct {
	Sizer *Sizer
	Ask   func(r Range, take func(State)) error
}

// RefineJoined drives the questions of several queries of one backend
// over [from, to), as Refine does one's, but asks the windows of some apps
// (the mixed windows below the first level) of all of them together,
// through join, whose Ask takes apps of any part in Range.Apps: the few
// apps that changed in a day are spread over all the queries, and asked
// query by query each day's minutes cost a request of each query, where
// together they cost one. The first level, and the windows of every app
// that reach past the end, stay each part's own. onLevel says how much of
// part's first level is answered.
func RefineJoined(from, to time.Time, res time.Duration, need map[int64]bool, parts []Part, join Part,
	onLevel func(part int, f float64)) (*Answers, error) {
	return refine(from, to, res, need, parts, &join, onLevel)
}

// refine is Refine over parts; join nil asks each part's mixed windows
// through the part itself, which only a single part can (a mixed window
// does not say whose it is).
func refine(from, to time.Time, res time.Duration, need map[int64]bool, parts []Part, join *Part,
	onLevel func(int, float64)) (*Answers, error) {
	a := &Answers{From: from, To: to, Spans: map[int][]timeline.Span{}, mixed: map[int64][]int{}}
	own := make([][]window, len(parts))   // each part's windows of every app at the current level
	extra := make([][]window, len(parts)) // each part's windows of every app that reach past the end
	for i := range parts {
		own[i], extra[i] = windowsIn(from, to, stateLevels[0], nil)
		own[i] = slices.DeleteFunc(own[i], func(w window) bool { return !need[w.at.Unix()] })
	}
	var joint, jointExtra []window // join's windows (of some apps) at the current level, and past the end
	levels := append(slices.Clone(stateLevels), res)
	if res == time.Minute {
		levels = stateLevels
	}
	for li, size := range levels {
		if li > 0 && join != nil {
			joint, jointExtra = a.childWindows(levels[li-1], size, jointExtra)
		}
		last := li == len(levels)-1
		pending := false
		// Every part's windows of the level are cut before any is asked:
		// the answers add the next level's mixed windows.
		for i := range parts {
			if li > 0 {
				own[i], extra[i] = a.childWindows(levels[li-1], size, extra[i])
			}
		}
		for i, p := range parts {
			if last {
				own[i], extra[i] = append(own[i], extra[i]...), nil // the end's last window, read as far as it goes
			}
			var on func(float64)
			if li == 0 && onLevel != nil {
				on = func(f float64) { onLevel(i, f) }
			}
			left, err := a.askLevel(own[i], size, res, li == 0, last, p, on)
			if err != nil {
				return nil, err
			}
			extra[i] = append(extra[i], left...)
			pending = pending || len(extra[i]) > 0
		}
		if join != nil {
			if last {
				joint, jointExtra = append(joint, jointExtra...), nil
			}
			left, err := a.askLevel(joint, size, res, false, last, *join, nil)
			if err != nil {
				return nil, err
			}
			jointExtra = append(jointExtra, left...)
			pending = pending || len(jointExtra) > 0
		}
		if len(a.mixed) == 0 && !pending {
			break
		}
	}
	return a, nil
}

// askLevel asks the windows ws of one level, of size, through p, in as
// few questions as p's sizer allows; onLevel, when set, says how much of
// them is answered. It returns the windows of every app left to the next
// level.
func (a *Answers) askLevel(ws []window, size, res time.Duration, first, last bool, p Part,
	onLevel func(float64)) (left []window, err error) {
	if len(ws) == 0 {
		return nil, nil
	}
	sz := p.Sizer
	budget, samples := sz.Budget, sz.most()
	if sz.Apps > 0 {
		budget = max(1, samples/sz.Apps) // instants of each app
	} else if first {
		samples = budget
	} else {
		samples = max(budget, samples)
	}
	qs := questions(ws, size, res, budget, samples)
	for qi, qu := range qs {
		r := Range{Start: qu.start, End: qu.end, Step: size, Window: size, Resolution: res, Apps: qu.apps}
		l, err := a.askParts(r, last, sz, p.Ask)
		if err != nil {
			return nil, err
		}
		left = append(left, l...)
		if onLevel != nil {
			onLevel(float64(qi+1) / float64(len(qs)))
		}
	}
	return left, nil
}

// ErrTooLarge marks the error of a question the backend refused as too
// large for it (Prometheus's query.max-samples, VictoriaMetrics'
// search.maxSamplesPerQuery): asked again it fails again, so Refine asks
// it in parts instead.
var ErrTooLarge = errors.New("question too large for the backend")

// askParts asks r and takes its answers once the whole question is
// answered. A question that reads more app-instants than sz allows now is
// asked in halves from the start; one a cycle interrupted is asked again
// in halves, so that the parts end between cycles; one refused as too
// large is asked in halves, of its apps, else of its steps. A single
// window of every app, which neither halves, is left to the next level as
// if mixed (returned, as the windows of every app that reach past the end
// are). Only a single window of a single app at the finest level, or of
// every app when the level is the last, fails for good.
func (a *Answers) askParts(r Range, last bool, sz *Sizer, ask func(Range, func(State)) error) (left []window, err error) {
	n := sz.appInstants(r)
	lo, hi, halves := halve(r, sz, false)
	if n <= sz.most() || !halves {
		for {
			var got []State
			sz.wait(n)
			began := sz.now()
			err = ask(r, func(st State) { got = append(got, st) })
			if err == nil {
				sz.answered(n, sz.now().Sub(began))
				for _, st := range got {
					a.take(st, r.Window, last)
				}
				return nil, nil
			}
			if !errors.Is(err, ErrInterrupted) {
				break
			}
			sz.interrupted(n, sz.now().Sub(began))
			if halves {
				break
			}
		}
		if errors.Is(err, ErrTooLarge) {
			lo, hi, halves = halve(r, sz, true)
		} else if !errors.Is(err, ErrInterrupted) {
			return nil, err
		}
	}
	if !halves {
		if r.Apps == nil && !last && steps(r) == 1 {
			return []window{{at: r.Start}}, nil
		}
		return nil, err
	}
	for _, part := range []Range{lo, hi} {
		l, err := a.askParts(part, last, sz, ask)
		if err != nil {
			return nil, err
		}
		left = append(left, l...)
	}
	return left, nil
}

// halve cuts r in two: of its steps when it has several, else of its apps
// (every app's, when sz knows how many); appsFirst (a question the backend
// refused) the other way round, which keeps a level's windows whole.
func halve(r Range, sz *Sizer, appsFirst bool) (lo, hi Range, ok bool) {
	lo, hi = r, r
	apps := r.Apps
	if apps == nil && sz.Scope != nil {
		apps = sz.Scope
	} else if apps == nil && sz.Apps > 1 {
		apps = make([]int, sz.Apps)
		for i := range apps {
			apps[i] = i
		}
	}
	n := steps(r) - 1
	switch {
	case n > 0 && (!appsFirst || len(apps) < 2):
		lo.End = r.Start.Add(time.Duration(n/2) * r.Step)
		hi.Start = lo.End.Add(r.Step)
	case len(apps) > 1:
		lo.Apps, hi.Apps = apps[:len(apps)/2], apps[len(apps)/2:]
	default:
		return r, r, false
	}
	return lo, hi, true
}

// Backoff is the wait before retry number n (0 is the first): first, then
// twice as long each time, up to most.
func Backoff(n int, first, most time.Duration) time.Duration {
	d := first
	for range n {
		if d >= most/2 {
			return most
		}
		d *= 2
	}
	return d
}

func timeMin(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
