package period

import (
	"iter"
	"time"
)

// Range is the half-open interval [Start, End) of instants.
type Range struct {
	Start, End time.Time
}

// Duration returns the elapsed time from Start to End.
func (r Range) Duration() time.Duration { return r.End.Sub(r.Start) }

// Contains reports whether Start <= t < End.
func (r Range) Contains(t time.Time) bool { return !t.Before(r.Start) && t.Before(r.End) }

// Split cuts r at the boundaries of step s on loc's clocks and yields the
// consecutive parts, with times in loc. The parts tile r: the first starts
// at r.Start and the last ends at r.End, so they are partial where r does
// not start or end on a boundary. A zero Step yields r whole; an empty r
// yields nothing. As time.Time.In, Split panics if loc is nil.
func (r Range) Split(s Step, loc *time.Location) iter.Seq[Range] {
	return func(yield func(Range) bool) {
		for start := r.Start; start.Before(r.End); {
			end := r.End
			if b, ok := s.next(start, loc); ok && b.Before(end) {
				end = b
			}
			if !yield(Range{Start: start.In(loc), End: end.In(loc)}) {
				return
			}
			start = end
		}
	}
}
