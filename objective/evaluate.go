package objective

import (
	"math"
	"strconv"
	"time"

	"github.com/availmon/availmon/internal/inputerr"
	"github.com/availmon/availmon/period"
	"github.com/availmon/availmon/timeline"
)

// Ratio is a figure that may be missing: OK is false when there was no
// time to compute it from, which is not the same as zero.
type Ratio struct {
	Value float64
	OK    bool
}

func ratio(num, den float64) Ratio {
	if den == 0 {
		return Ratio{}
	}
	return Ratio{Value: num / den, OK: true}
}

// State is what an objective's figures say about its promise.
type State uint8

const (
	// OK: the objective is met so far, and nothing burns at a page's rate.
	OK State = iota
	// AtRisk: the budget burns at a page's rate in two windows at once,
	// a long one and a short one (the SRE workbook's multi-window scheme):
	// 14.4 times the sustainable rate over 1h and over 5m, or 6 times over
	// 6h and over 30m. At 14.4x a 30-day budget lasts 50 hours, and 2% of
	// it is gone in an hour.
	AtRisk
	// Breached: more bad time than the budget allows. For a calendar window,
	// even a perfect rest of the window cannot bring it back to the target;
	// a rolling window recovers only as its bad time leaves the window.
	Breached
)

// String returns "ok", "at_risk" or "breached".
func (s State) String() string {
	switch s {
	case OK:
		return "ok"
	case AtRisk:
		return "at_risk"
	case Breached:
		return "breached"
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// The trailing windows of the burn rates, in the order of Status.Burn: the
// long and short windows of the SRE workbook's alerts (14.4x over 1h and 5m,
// 6x over 6h and 30m page; 3x over 1d and 2h, 1x over 3d and 6h open
// tickets).
const (
	burn5m  = 5 * time.Minute
	burn30m = 30 * time.Minute
	burn1h  = time.Hour
	burn2h  = 2 * time.Hour
	burn6h  = 6 * time.Hour
	burn1d  = 24 * time.Hour
	burn3d  = 72 * time.Hour

	// projectFrom is the trailing time a calendar window's rest is projected
	// from.
	projectFrom = 7 * 24 * time.Hour
)

// NumBurn is the number of burn windows in Status.Burn.
const NumBurn = 7

func burnWindows() [NumBurn]time.Duration {
	return [NumBurn]time.Duration{burn5m, burn30m, burn1h, burn2h, burn6h, burn1d, burn3d}
}

// Burn is the rate the error budget burns at over a trailing window: the
// share of bad time in the window's counted time, divided by the share the
// target allows (1 - Target). At 1 the budget lasts exactly the objective's
// window; at 14.4 a 30-day budget is gone in 50 hours. Its Rate is missing
// when the window had no counted time (all unknown or in maintenance: no
// evidence, not a burn of 0) and when the target is 100% (no budget).
type Burn struct {
	Window time.Duration
	Rate   Ratio
}

// Status is an objective's figures at an instant.
type Status struct {
	// Window is the objective's window at the instant: [now-Rolling, now)
	// for a rolling window, the whole month or quarter for a calendar one
	// (its End is after now).
	Window period.Range
	// Totals is the subject's time in the elapsed window, [Window.Start, now).
	Totals timeline.Totals
	// Attainment is Up / (Up + Down) of Totals.
	Attainment Ratio
	// Budget is the bad time the window allows: (1 - Target) times the time
	// it counts. For a rolling window that is its up and down time; for a
	// calendar window also the rest of the window, less the maintenance
	// marked ahead in it, as if all of it will be counted (for a selection,
	// the rest of every app).
	Budget time.Duration
	// Remaining is Budget less the bad time so far; below zero once spent.
	Remaining time.Duration
	// RemainingFraction is Remaining / Budget: 1 untouched, 0 spent, below
	// 0 overspent; missing when Budget is 0.
	RemainingFraction Ratio
	// Burn holds the burn rates over 5m, 30m, 1h, 2h, 6h, 1d and 3d, in
	// that order.
	Burn [NumBurn]Burn
	// Projected is, for a calendar window, the attainment at Window.End if
	// the rest of the window goes as the trailing 7 days did; missing for a
	// rolling window, and when those days had no counted time.
	Projected Ratio
	// State sums the figures up: Breached, AtRisk or OK.
	State State
}

// tolerance is the relative slack of comparisons with thresholds: figures
// that equal a threshold in exact arithmetic may miss it by a rounding
// error, and 2% of a 30-day budget in an hour must page at 14.4x.
const tolerance = 1e-9

// Evaluate computes o's figures at now from its subject's time in src,
// which it reads once, over the ranges from the earliest it needs (the
// window's start or 3 days, for a calendar window 7 days, before now) to
// now, and for a calendar window on to its end for the maintenance marked
// ahead. now is floored to the second, as the timeline counts.
//
// o must be valid (Validate); Evaluate panics if its target or window is
// not. It reads no clock and keeps nothing: call it every cycle with the
// views of that cycle.
func (o Objective) Evaluate(now time.Time, src Source) Status {
	o.mustBeValid()
	now = floor(now)
	win := o.Window.Range(now)
	var r reading
	r.read(src, now, win, o.Window.Calendar != 0)

	el := r.elapsed()
	rest := o.rest(r.ahead())
	budget := o.budget(el, rest)
	st := Status{Window: win, Totals: el.totals()}
	st.Attainment = ratio(float64(el.up), float64(el.counted()))
	st.Budget = time.Duration(math.Round(budget))
	st.Remaining = time.Duration(math.Round(budget - float64(el.down)))
	st.RemainingFraction = ratio(budget-float64(el.down), budget)
	share := o.share()
	for i, w := range burnWindows() {
		// The burn windows are on the trail from the longest to the shortest.
		st.Burn[i] = Burn{Window: w, Rate: burnRate(r.trailing(NumBurn-i), share)}
	}
	if o.Window.Calendar != 0 {
		st.Projected = projection(el, r.trailing(iProject), rest)
	}
	st.State = o.state(st, float64(el.down), budget)
	return st
}

// budget is the bad time, in nanoseconds, that a window allows whose time
// so far is elapsed and which will count rest more: (1 - Target) times the
// time it counts, so that the budget is spent exactly when the attainment
// falls below the target (for a calendar window: would, with a perfect
// rest). Time that is unknown or in maintenance is not counted, so it
// neither spends budget nor earns any.
func (o Objective) budget(elapsed acc, rest time.Duration) float64 {
	return o.share() * float64(elapsed.counted()+rest)
}

// share is the part of the counted time the target lets be bad: 1 - Target,
// to the 12 decimals ParseTarget reads. Taken so, 99.9% leaves the float64
// nearest 0.1%, and a 30-day budget is 2592 s to the nanosecond.
func (o Objective) share() float64 {
	return math.Round((1-o.Target)*1e12) / 1e12
}

// rest is the time a calendar window will count after now if every second
// of it is observed: its time after now (ahead) outside the maintenance
// marked there, whatever the record says of its state. Taken from the
// totals, it is the window's rest times the number of records a Views sums.
func (o Objective) rest(ahead acc) time.Duration {
	if o.Window.Calendar == 0 {
		return 0
	}
	return ahead.up + ahead.down + ahead.partial + ahead.unknown
}

// burnRate is t's share of bad time in its counted time over the share the
// target allows.
func burnRate(t acc, share float64) Ratio {
	if share == 0 {
		return Ratio{}
	}
	r := ratio(float64(t.down), float64(t.counted()))
	if r.OK {
		r.Value /= share
	}
	return r
}

// projection is the attainment at the window's end if the rest (the time
// left to count) goes as the trailing days did.
func projection(elapsed, trailing acc, rest time.Duration) Ratio {
	if rest == 0 {
		return ratio(float64(elapsed.up), float64(elapsed.counted()))
	}
	a := ratio(float64(trailing.up), float64(trailing.counted()))
	if !a.OK {
		return Ratio{}
	}
	return ratio(float64(elapsed.up)+a.Value*float64(rest), float64(elapsed.counted()+rest))
}

// state is Breached when the bad time exceeds the budget, AtRisk when a
// page-level burn shows in a long and a short window at once, OK else.
func (o Objective) state(st Status, down, budget float64) State {
	if down > budget*(1+tolerance) {
		return Breached
	}
	rate := func(w time.Duration) float64 {
		for _, b := range st.Burn {
			if b.Window == w && b.Rate.OK {
				return b.Rate.Value
			}
		}
		return 0
	}
	reaches := func(x, threshold float64) bool { return x >= threshold*(1-tolerance) }
	if reaches(rate(burn1h), 14.4) && reaches(rate(burn5m), 14.4) ||
		reaches(rate(burn6h), 6) && reaches(rate(burn30m), 6) {
		return AtRisk
	}
	return OK
}

func (o Objective) mustBeValid() {
	if !validTarget(o.Target) || o.Window.validate() != nil {
		panic("objective: Evaluate of an invalid objective " + inputerr.Quote(o.Name))
	}
}

// floor drops what a time has below the second, as the timeline does.
func floor(t time.Time) time.Time { return t.Truncate(time.Second) }
