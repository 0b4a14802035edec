package backfill

import (
	"errors"
	"time"
)

// ErrInterrupted marks the error of a question a check cycle interrupted
// (internal/cyclegate): asked again whole it may be interrupted again by
// the next cycle, and again, so Refine asks it in halves.
var ErrInterrupted = errors.New("question interrupted by a cycle")

// AppInstants bounds the app-instants of one request of the monitor's
// backfill: Prometheus holds two samples per app-instant at its peak (the
// two sides of promsource's expression, present and down), so 30 million,
// three fifths of its default query.max-samples (50 million), and some
// 1.4 s of its CPU at 0.09 µs an app-instant. A question of every app of
// a query that tells its apps (availmon.PastScope) is one request of
// those apps, so at 10,000 apps in four queries of at most 2,859 a
// question holds three days of minutes (12.4 million), not one.
const AppInstants = 15_000_000

// Sizer bounds the app-instants (apps times instants of each) of one
// question from the start, so that the backend never refuses it as too
// large, and adapts the bound to the backend's pace, so that a question
// ends well between two cycles: a cycle that begins interrupts the
// question in flight, and a question longer than the gap between cycles
// would be interrupted by every one.
type Sizer struct {
	// Budget is the most instants of each app a question of every app
	// reads when Apps is unknown (zero).
	Budget int
	// Apps is how many apps a question of every app reads in one request
	// (the query's when its source tells them, else the backend's); zero
	// when unknown.
	Apps int
	// Scope, when set, lists those apps (Apps of them), so that a
	// question of every app halved by its apps asks them and no others;
	// nil means the apps 0 to Apps-1.
	Scope []int
	// Most bounds the app-instants of any question; zero means Samples.
	Most int
	// Target is the wall a question should take (half the gap between
	// cycles); zero leaves the bound at Most. The caller may change it
	// between questions, as the gap changes.
	Target time.Duration
	// Now reads the clock questions are timed on; nil means time.Now.
	Now func() time.Time
	// Wait, when set, is called before each question with the wall it is
	// expected to take, once the pace is known: it waits until a question
	// that long can end before the next cycle begins (a question begun
	// late in the gap between two cycles would be interrupted whatever
	// its size).
	Wait func(wall time.Duration)

	perInstant float64 // measured wall per app-instant, ns; 0 before the first answer
	limit      int     // the bound an interruption set before the pace was known; 0 none
}

// most is the bound of a question's app-instants now.
func (s *Sizer) most() int {
	m := s.Most
	if m <= 0 {
		m = Samples
	}
	if s.limit > 0 {
		m = min(m, s.limit)
	}
	if s.Target > 0 && s.perInstant > 0 {
		m = min(m, int(float64(s.Target)/s.perInstant))
	}
	return max(m, 1)
}

// appInstants is how many app-instants r reads, or 0 when r asks every
// app and their number is unknown.
func (s *Sizer) appInstants(r Range) int {
	apps := len(r.Apps)
	if r.Apps == nil {
		apps = s.Apps
	}
	return apps * steps(r) * int(r.Window/r.Resolution)
}

// steps is how many windows r asks about.
func steps(r Range) int { return int(r.End.Sub(r.Start)/r.Step) + 1 }

// answered learns the backend's pace from a question of n app-instants
// answered in wall: the next questions read as many as Target allows.
func (s *Sizer) answered(n int, wall time.Duration) {
	if s.Target <= 0 || n <= 0 || wall <= 0 {
		return
	}
	s.perInstant = float64(wall) / float64(n)
	s.limit = 0
}

// expect is the wall a question of n app-instants is expected to take;
// zero before the pace is known.
func (s *Sizer) expect(n int) time.Duration {
	return time.Duration(s.perInstant * float64(n))
}

// wait calls Wait for a question of n app-instants.
func (s *Sizer) wait(n int) {
	if d := s.expect(n); s.Wait != nil && d > 0 {
		s.Wait(d)
	}
}

// interrupted learns that a question of n app-instants had not ended
// after wall, when the next cycle began: before the pace is known, the
// next questions read at most half as many; after, only a question that
// outran what the pace expected slows the pace (twice what it showed), as
// one begun late in the gap between cycles may be interrupted whatever
// its size.
func (s *Sizer) interrupted(n int, wall time.Duration) {
	switch {
	case n <= 1:
	case s.perInstant == 0:
		s.limit = min(s.most(), max(1, n/2))
	case wall > s.expect(n):
		s.answered(n, 2*wall)
	}
}

func (s *Sizer) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
