package objective

import (
	"time"

	"github.com/availmon/availmon/timeline"
)

// Source is the time of an objective's subject by state: it adds to sum[i]
// the totals of [bounds[i], bounds[i+1]), as timeline.View.AddSteps does.
// Evaluate asks one Source once, for all the ranges it needs at a time, so
// a subject's record is read in one pass. The totals of a step add up to
// its length times the number of records summed, as timeline's do: that is
// how a calendar window's rest is counted for every app of a selection.
//
// A timeline.View is a Source (an app's or a service's record); Views adds
// several (a selection of apps, counted like a location: the sum of their
// time); TotalsFunc adapts a function that answers one range at a time.
type Source interface {
	AddSteps(sum []timeline.Totals, bounds []time.Time)
}

var (
	_ Source = timeline.View{}
	_ Source = Views(nil)
	_ Source = TotalsFunc(nil)
)

// Views is the time of several records added up: a selection of apps is
// counted like a location, its up time the sum of theirs, and so on.
type Views []timeline.View

// AddSteps adds every view's steps to sum, one pass per view.
func (vs Views) AddSteps(sum []timeline.Totals, bounds []time.Time) {
	for i := range vs {
		vs[i].AddSteps(sum, bounds)
	}
}

// TotalsFunc is a Source that answers one range at a time, as a cache or a
// test model may.
type TotalsFunc func(from, to time.Time) timeline.Totals

// AddSteps adds f's totals of each step to sum.
func (f TotalsFunc) AddSteps(sum []timeline.Totals, bounds []time.Time) {
	if len(sum) != len(bounds)-1 && !(len(sum) == 0 && len(bounds) == 0) {
		panic("objective: AddSteps needs one sum per step")
	}
	for i := range sum {
		sum[i] = sum[i].Add(f(bounds[i], bounds[i+1]))
	}
}
