package promanswer

import (
	"errors"
	"math"

	"github.com/prometheus/common/model"
)

// Summary is what availmon's rulings need of an expression's samples, in
// any order: whether there is one, whether one is 0 or NaN, and the largest
// other value. A cycle keeps one per expression, not the samples: 16 bytes,
// two per app while a cycle of 50,000 apps runs. The Prometheus source
// rules on its checks with it, and the monitor on the series a discovery
// rule found.
type Summary struct {
	worst               float64 // the largest value that is not NaN, when worstSet
	any                 bool    // a sample was seen
	zero, nan, worstSet bool
}

// Add counts one sample's value.
func (s *Summary) Add(f float64) {
	s.any = true
	switch {
	case f == 0:
		s.zero = true
	case math.IsNaN(f):
		s.nan = true
		return
	}
	if !s.worstSet || f > s.worst {
		s.worst, s.worstSet = f, true
	}
}

// AddVector counts every sample of v.
func (s *Summary) AddVector(v model.Vector) {
	for _, smp := range v {
		s.Add(float64(smp.Value))
	}
}

// Verdict is what the rulings make of an expression's samples.
type Verdict uint8

// The verdicts: no sample is unavailable; up only if every sample is
// non-zero and not NaN; a zero makes it down, a NaN (and no zero)
// unavailable.
const (
	NoSample Verdict = iota
	Up
	Down
	NaN
)

// Errors of the verdicts that are unavailable, made once: they are the
// same every cycle.
var (
	ErrNoSample  = errors.New("no sample")
	ErrNaNSample = errors.New("sample is NaN")
)

// Verdict applies the rulings.
func (s *Summary) Verdict() Verdict {
	switch {
	case !s.any:
		return NoSample
	case s.zero:
		return Down
	case s.nan:
		return NaN
	}
	return Up
}

// Seconds is the largest value, when it is a response time in seconds: the
// slowest series of a response time expression speaks for the app.
func (s *Summary) Seconds() (float64, bool) {
	if s.worstSet && !math.IsInf(s.worst, -1) && s.worst >= 0 {
		return s.worst, true
	}
	return 0, false
}
