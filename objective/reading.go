package objective

import (
	"time"

	"github.com/availmon/availmon/period"
	"github.com/availmon/availmon/timeline"
)

// trail is the instants before now an evaluation reads, earliest first:
// the start of the days a projection follows, the start of each burn window
// from the longest to the shortest, and now itself.
func trail() [NumBurn + 2]time.Duration {
	return [...]time.Duration{projectFrom, burn3d, burn1d, burn6h, burn2h, burn1h, burn30m, burn5m, 0}
}

const (
	nTrail   = NumBurn + 2
	iProject = 0          // trail index of the projection's start
	iNow     = nTrail - 1 // trail index of now
)

// A reading is a source read once, in one pass, at the instants an
// evaluation needs: the trail, the window's start among them and a calendar
// window's end after them. It has fixed arrays, not slices, so that it
// stays on the stack: Evaluate runs for every objective every cycle.
type reading struct {
	at    [nTrail + 2]time.Time
	steps [nTrail + 1]timeline.Totals
	cum   [nTrail + 2]acc // cum[i] is the time of [at[0], at[i])
	n     int
	start int // index of the window's start
	end   int // index of a calendar window's end; of now for a rolling one
	trail [nTrail]int
}

func (r *reading) add(t time.Time) int {
	if r.n > 0 && r.at[r.n-1].Equal(t) {
		return r.n - 1
	}
	r.at[r.n] = t
	r.n++
	return r.n - 1
}

// read reads src at now for the window win; ahead is whether win goes on
// after now (a calendar window), whose maintenance marked ahead counts.
func (r *reading) read(src Source, now time.Time, win period.Range, ahead bool) {
	placed := false
	for k, d := range trail() {
		if k == iProject && !ahead {
			continue // only a calendar window is projected
		}
		t := now.Add(-d)
		if !placed && !win.Start.After(t) {
			r.start, placed = r.add(win.Start), true
		}
		r.trail[k] = r.add(t)
	}
	r.end = r.trail[iNow]
	if ahead && win.End.After(now) {
		r.end = r.add(win.End)
	}
	addSteps(src, r.steps[:r.n-1], r.at[:r.n])
	for i := range r.n - 1 {
		r.cum[i+1] = r.cum[i].plus(r.steps[i])
	}
}

// addSteps calls src.AddSteps, directly for the sources this package knows
// so that the arrays it is given stay on the caller's stack.
func addSteps(src Source, sum []timeline.Totals, bounds []time.Time) {
	switch s := src.(type) {
	case timeline.View:
		s.AddSteps(sum, bounds)
	case Views:
		s.AddSteps(sum, bounds)
	default:
		// Another Source may keep what it is given: hand it copies.
		sc, bc := make([]timeline.Totals, len(sum)), make([]time.Time, len(bounds))
		copy(sc, sum)
		copy(bc, bounds)
		src.AddSteps(sc, bc)
		copy(sum, sc)
	}
}

func (r *reading) between(i, j int) acc { return r.cum[j].minus(r.cum[i]) }

// elapsed is the window's time so far; ahead its time after now.
func (r *reading) elapsed() acc { return r.between(r.start, r.trail[iNow]) }
func (r *reading) ahead() acc   { return r.between(r.trail[iNow], r.end) }

// trailing is the time of the k-th trail instant to now.
func (r *reading) trailing(k int) acc { return r.between(r.trail[k], r.trail[iNow]) }
