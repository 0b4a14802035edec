package objective

import (
	"math"
	"time"

	"github.com/availmon/availmon/period"
)

// Point is an objective's budget at the end of a day of its window.
type Point struct {
	// End is the end of the day on the window's clocks (midnight, 23 or 25
	// hours after the one before across a change of summer time), or now
	// for the day still going on.
	End time.Time
	// Budget and Remaining are the Status's at End.
	Budget, Remaining time.Duration
	// Attainment is the Status's at End: of the window's time up to End.
	Attainment Ratio
}

// Series returns the course of o's budget over its window at now, for a
// chart: a Point at the end of each day of the window on the clocks of
// Window.Location, and one at now, each with the figures Evaluate would
// give at that instant from the same time. For a rolling window each day's
// figures are those of the rolling window ending then, so it reads src
// from twice the window before now; for a calendar window, those of the
// same month or quarter, the maintenance marked ahead as known now.
//
// o must be valid (Validate); Series panics if its target or window is not.
func (o Objective) Series(now time.Time, src Source) []Point {
	o.mustBeValid()
	now = floor(now)
	win := o.Window.Range(now)
	var ends []time.Time
	for r := range (period.Range{Start: win.Start, End: now}).Split(oneDay(), o.Window.location()) {
		ends = append(ends, r.End)
	}
	if len(ends) == 0 {
		ends = append(ends, now.In(o.Window.location()))
	}
	var l ledger
	l.mark(ends...)
	if o.Window.Calendar != 0 {
		l.mark(win.Start, win.End)
	} else {
		for _, e := range ends {
			l.mark(e.Add(-o.Window.Rolling.Duration()))
		}
	}
	l.read(src)
	ps := make([]Point, len(ends))
	for i, e := range ends {
		w := win
		if o.Window.Calendar == 0 {
			w = o.Window.Range(e)
		}
		el := l.between(w.Start, e)
		var ahead acc
		if o.Window.Calendar != 0 {
			ahead = l.between(e, w.End)
		}
		b := o.budget(el, o.rest(ahead))
		down := el.down
		ps[i] = Point{End: e, Budget: time.Duration(math.Round(b)), Remaining: time.Duration(math.Round(b - float64(down))),
			Attainment: ratio(float64(el.up), float64(el.counted()))}
	}
	return ps
}

// oneDay is the step of local days.
func oneDay() period.Step {
	s, err := period.ParseStep("1d")
	if err != nil {
		panic("objective: " + err.Error())
	}
	return s
}
