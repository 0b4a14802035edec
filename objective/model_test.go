package objective_test

import (
	"math"
	"time"

	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/period"
	"github.com/availmon/availmon/timeline"
)

// window is an objective's window at now, from the calendar: the month or
// quarter holding now on the zone's clocks, or the elapsed time before now.
func window(w objective.Window, now time.Time) period.Range {
	loc := w.Location
	if loc == nil {
		loc = time.UTC
	}
	l := now.In(loc)
	switch w.Calendar {
	case period.Month:
		return period.Range{Start: time.Date(l.Year(), l.Month(), 1, 0, 0, 0, 0, loc), End: time.Date(l.Year(), l.Month()+1, 1, 0, 0, 0, 0, loc)}
	case period.Quarter:
		q := (l.Month()-1)/3*3 + 1
		return period.Range{Start: time.Date(l.Year(), q, 1, 0, 0, 0, 0, loc), End: time.Date(l.Year(), q+3, 1, 0, 0, 0, 0, loc)}
	}
	return period.Range{Start: now.Add(-w.Rolling.Duration()), End: now}
}

// model is a subject's time minute by minute, and the definitions of the
// package computed from it the plain way: every range scanned, budgets and
// thresholds compared in integers.
type model struct {
	t0    time.Time
	state []timeline.State
	maint []bool
}

func (m *model) index(t time.Time) int {
	i := int(t.Sub(m.t0) / time.Minute)
	return min(max(i, 0), len(m.state))
}

// totals scans [a, b); both are whole minutes.
func (m *model) totals(a, b time.Time) timeline.Totals {
	var t timeline.Totals
	for i := m.index(a); i < m.index(b); i++ {
		switch {
		case m.maint[i]:
			t.Maintenance += time.Minute
		case m.state[i] == timeline.Up:
			t.Up += time.Minute
		case m.state[i] == timeline.Down:
			t.Down += time.Minute
		default:
			t.Unknown += time.Minute
		}
	}
	// Time before the model's start and after its end was never observed.
	if before := m.t0.Sub(a); before > 0 {
		t.Unknown += min(before, b.Sub(a))
	}
	if end := m.t0.Add(time.Duration(len(m.state)) * time.Minute); b.After(end) {
		t.Unknown += b.Sub(a.Add(max(0, end.Sub(a))))
	}
	return t
}

// target is an objective's target as a fraction num/den of bad time
// allowed, for exact comparisons.
type target struct {
	text     string
	num, den int64
}

// status is what the package must give for o at now, target tg.
func (m *model) status(o objective.Objective, tg target, now time.Time) objective.Status {
	share := float64(tg.num) / float64(tg.den)
	win := window(o.Window, now)
	el := m.totals(win.Start, now)
	counted := el.Up + el.Down
	if o.Window.Calendar != 0 {
		counted += win.End.Sub(now) - m.totals(now, win.End).Maintenance
	}
	st := objective.Status{Window: win, Totals: el}
	if el.Up+el.Down > 0 {
		st.Attainment = ok(sec(el.Up) / sec(el.Up+el.Down))
	}
	st.Budget = time.Duration(math.Round(share * float64(counted)))
	st.Remaining = time.Duration(math.Round(share*float64(counted) - float64(el.Down)))
	if tg.num > 0 && counted > 0 {
		st.RemainingFraction = ok(1 - sec(el.Down)/(share*sec(counted)))
	}
	var rates [objective.NumBurn]float64
	for i, w := range []time.Duration{5 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 6 * time.Hour, day, 3 * day} {
		t := m.totals(now.Add(-w), now)
		rates[i] = math.NaN()
		if tg.num > 0 && t.Up+t.Down > 0 {
			rates[i] = sec(t.Down) / sec(t.Up+t.Down) / share
		}
	}
	st.Burn = burns(rates[:]...)
	if o.Window.Calendar != 0 {
		last := m.totals(now.Add(-7*day), now)
		rest := win.End.Sub(now) - m.totals(now, win.End).Maintenance
		switch {
		case rest == 0 && el.Up+el.Down > 0:
			st.Projected = ok(sec(el.Up) / sec(el.Up+el.Down))
		case rest > 0 && last.Up+last.Down > 0:
			a := sec(last.Up) / sec(last.Up+last.Down)
			st.Projected = ok((sec(el.Up) + a*sec(rest)) / sec(el.Up+el.Down+rest))
		}
	}
	st.State = m.verdict(tg, el.Down, counted, now)
	return st
}

// verdict compares in whole seconds and integers: bad time over the budget
// is a breach; 14.4x over 1h and 5m, or 6x over 6h and 30m, is a risk.
func (m *model) verdict(tg target, down, counted time.Duration, now time.Time) objective.State {
	s := func(d time.Duration) int64 { return int64(d / time.Second) }
	if s(down)*tg.den > tg.num*s(counted) {
		return objective.Breached
	}
	// burn >= f/10 ⇔ down*den*10 >= f*num*(up+down)
	reaches := func(w time.Duration, f int64) bool {
		t := m.totals(now.Add(-w), now)
		return tg.num > 0 && t.Up+t.Down > 0 && s(t.Down)*tg.den*10 >= f*tg.num*s(t.Up+t.Down)
	}
	if reaches(time.Hour, 144) && reaches(5*time.Minute, 144) || reaches(6*time.Hour, 60) && reaches(30*time.Minute, 60) {
		return objective.AtRisk
	}
	return objective.OK
}

// series is Status's budget at the end of every local day of the window
// and at now, the days found by the calendar, not by stepping.
func (m *model) series(o objective.Objective, tg target, now time.Time) []objective.Point {
	loc := o.Window.Location
	if loc == nil {
		loc = time.UTC
	}
	start := window(o.Window, now).Start.In(loc)
	var ps []objective.Point
	for d := 1; ; d++ {
		e := time.Date(start.Year(), start.Month(), start.Day()+d, 0, 0, 0, 0, loc)
		if !e.Before(now) {
			break
		}
		st := m.status(o, tg, e)
		ps = append(ps, objective.Point{End: e, Budget: st.Budget, Remaining: st.Remaining, Attainment: st.Attainment})
	}
	st := m.status(o, tg, now)
	return append(ps, objective.Point{End: now, Budget: st.Budget, Remaining: st.Remaining, Attainment: st.Attainment})
}
