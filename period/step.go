package period

import (
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// Step is the length of the parts Range.Split cuts a range into, on the
// clocks of a time zone. The zero Step does not cut.
type Step struct {
	text string
	unit Unit          // Day or Week, or 0 for a step of clock time
	tick time.Duration // a step of clock time: a multiple of 15m that divides a day
}

// ParseStep reads a step in Prometheus duration syntax:
//
//   - 1d (or 24h): local days, from midnight to midnight, 23 or 25 hours
//     long across a change to or from summer time;
//   - 1w (or 7d): ISO weeks, from Monday 00:00;
//   - a multiple of 15m that divides a day (15m, 30m, 1h, 2h, 3h, 4h, 6h, 8h,
//     12h, ...): the parts end where the clock shows a multiple of the step
//     since midnight, and where it jumps forward onto or over one. A day
//     with a one-hour change to summer time has 23 parts of 1h, one with a
//     change back 25; in a zone whose offset is not whole hours
//     (Asia/Kathmandu, +05:45) the parts still follow its clock.
//
// Every boundary falls on a multiple of 15 minutes of UTC in zones whose
// offsets do, as all of today's do. The error wraps ErrStep and lists what
// is accepted.
func ParseStep(s string) (Step, error) {
	d, err := model.ParseDuration(s)
	switch {
	case err != nil:
		return Step{}, refuse(ErrStep, "step", s, "not a duration", stepForms)
	case strings.Contains(s, "y") || strings.Contains(s, "ms"):
		return Step{}, refuse(ErrStep, "step", s, "the units y and ms are not accepted", stepForms)
	}
	const day = 24 * time.Hour
	switch td := time.Duration(d); {
	case td == day:
		return Step{text: s, unit: Day}, nil
	case td == 7*day:
		return Step{text: s, unit: Week}, nil
	case td > 0 && td < day && td%(15*time.Minute) == 0 && day%td == 0:
		return Step{text: s, tick: td}, nil
	}
	return Step{}, refuse(ErrStep, "step", s, "not 1d, 1w or a multiple of 15m that divides a day", stepForms)
}

// String returns the step as ParseStep read it: "24h" stays "24h".
func (s Step) String() string { return s.text }

// next returns the first boundary of s after t on loc's clocks; false for
// the zero Step.
func (s Step) next(t time.Time, loc *time.Location) (time.Time, bool) {
	switch {
	case s.unit != 0:
		return Containing(s.unit, t, loc).In(loc).End, true
	case s.tick != 0:
		return nextTick(t, int64(s.tick/time.Second), loc), true
	}
	return time.Time{}, false
}

// nextTick returns the first instant after t at which loc's clock shows a
// multiple of tick seconds since midnight, or jumps forward onto or over
// one. It walks the zone's offsets: within one offset the clock runs with
// UTC, so the next multiple is found by arithmetic.
func nextTick(t time.Time, tick int64, loc *time.Location) time.Time {
	at := t.Unix() // whole seconds at or before t: every boundary is whole
	for first := true; ; first = false {
		off, end, ok := zoneAt(at, loc)
		clock := at + off
		var m int64 // the multiple the clock shows next
		if first {
			m = floorDiv(clock, tick)*tick + tick
		} else {
			// at is where the offset changed: the clock went from just
			// before `before` to clock in an instant.
			_, prev := time.Unix(at-1, 0).In(loc).Zone()
			if before := at + int64(prev); before < clock && floorDiv(clock, tick)*tick >= before {
				return time.Unix(at, 0)
			}
			m = -floorDiv(-clock, tick) * tick // rounded up
		}
		if c := m - off; !ok || c < end {
			return time.Unix(c, 0)
		}
		at = end
	}
}

// floorDiv divides rounding down, also for clocks before 1970.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
