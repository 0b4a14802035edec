package objective

import (
	"slices"
	"time"

	"github.com/availmon/availmon/timeline"
)

// acc is time by state, kept as a running sum that can be subtracted: the
// time of a range is the sum up to its end less the sum up to its start.
type acc struct {
	up, down, partial, unknown, maint time.Duration
	approx                            int // steps that were approximate
}

func (a acc) plus(t timeline.Totals) acc {
	a.up += t.Up
	a.down += t.Down
	a.partial += t.Partial
	a.unknown += t.Unknown
	a.maint += t.Maintenance
	if t.Approximate {
		a.approx++
	}
	return a
}

func (a acc) minus(b acc) acc {
	return acc{up: a.up - b.up, down: a.down - b.down, partial: a.partial - b.partial,
		unknown: a.unknown - b.unknown, maint: a.maint - b.maint, approx: a.approx - b.approx}
}

// counted is the time an objective counts: good (up) and bad (down).
func (a acc) counted() time.Duration { return a.up + a.down }

func (a acc) totals() timeline.Totals {
	return timeline.Totals{Up: a.up, Down: a.down, Partial: a.partial, Unknown: a.unknown,
		Maintenance: a.maint, Approximate: a.approx > 0}
}

// A ledger is a source's time read once at a set of instants: cum[i] is
// the time of [at[0], at[i]), so the time between any two of the instants
// is a subtraction. Every range an evaluation needs ends and starts at one
// of them, and the source is read in a single pass.
type ledger struct {
	at    []time.Time
	cum   []acc
	steps []timeline.Totals
}

// mark adds instants the ledger must know.
func (l *ledger) mark(ts ...time.Time) { l.at = append(l.at, ts...) }

// read sorts the instants and reads src over them.
func (l *ledger) read(src Source) {
	slices.SortFunc(l.at, time.Time.Compare)
	l.at = slices.CompactFunc(l.at, time.Time.Equal)
	n := len(l.at)
	l.steps = slices.Grow(l.steps[:0], n)[:max(n-1, 0)]
	clear(l.steps)
	l.cum = slices.Grow(l.cum[:0], n)[:n]
	if n < 2 {
		clear(l.cum)
		return
	}
	src.AddSteps(l.steps, l.at)
	l.cum[0] = acc{}
	for i, s := range l.steps {
		l.cum[i+1] = l.cum[i].plus(s)
	}
}

// between returns the time of [a, b); a and b must be marked instants.
func (l *ledger) between(a, b time.Time) acc {
	return l.upto(b).minus(l.upto(a))
}

func (l *ledger) upto(t time.Time) acc {
	i, ok := slices.BinarySearchFunc(l.at, t, time.Time.Compare)
	if !ok {
		panic("objective: ledger asked for an instant it did not read")
	}
	return l.cum[i]
}
