package timeline

import "time"

// Walk calls f with the record's time in [from, to), in order, as spans
// of one state and maintenance flag, the last check's state over the time
// it holds included. A flapping day, kept as 15-minute totals, has no
// exact states: its time is handed as Unknown, so that what is derived
// from it (a location's state) is left unknown rather than guessed.
func (v View) Walk(from, to time.Time, f func(s Span, maint bool)) {
	lo, hi := sec(from), clampEnd(to.Unix())
	o := v.iter(lo, false)
	for lo < hi {
		p, ok := o.next()
		if !ok {
			return
		}
		a, b := max(p.a, lo), min(p.b, hi)
		if a < b {
			s, m := Unknown, false
			if p.v != flap {
				s, m = p.v.state(), p.v.maint()
			}
			f(Span{From: instant(a), To: instant(b), State: s}, m)
		}
		if p.b >= hi {
			return
		}
	}
}
