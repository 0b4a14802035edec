package timeline

import (
	"slices"
	"time"
)

// model is the record's definition, second by second, over n seconds from
// t0: what the property test holds the record to.
type model struct {
	t0, n         int64
	f             []value // the stored time: what checks sealed, fills, maintenance
	last, pf, pt  int64
	ps            State
	end           int64          // how far the record has written its stream
	flapped       map[int64]bool // days kept as buckets, for good
	dirty         map[int64]bool // flapped days edited inside a bucket afterwards
	maxDayChanges int
}

func newModel(t0 time.Time, days int) *model {
	n := int64(days) * daySec
	return &model{t0: sec(t0), n: n, f: make([]value, n), flapped: map[int64]bool{}, dirty: map[int64]bool{}}
}

func (m *model) at(x int64) value {
	if x < m.t0 || x >= m.t0+m.n {
		return 0
	}
	return m.f[x-m.t0]
}

func (m *model) set(a, b int64, fn func(value) value) {
	for x := max(a, m.t0); x < min(b, m.t0+m.n); x++ {
		m.f[x-m.t0] = fn(m.f[x-m.t0])
	}
}

// combined is what the record answers at x: the stored time with the last
// check's state over what it holds.
func (m *model) combined(x int64) value {
	v := m.at(x)
	if m.ps != Unknown && x >= m.pf && x < m.pt {
		v = mk(m.ps, v.maint())
	}
	return v
}

// touch marks flapped days that an edit edge not on a bucket edge falls in.
func (m *model) touch(edges ...int64) {
	for _, e := range edges {
		if d := dayOf(e); m.flapped[d] && e%bucketSec != 0 && e < m.end {
			m.dirty[d] = true
		}
	}
}

func (m *model) check(t int64, s State, hold int64) {
	if m.last > 0 && t < m.last {
		return
	}
	if e := min(m.pt, t); m.ps != Unknown && m.pf < e {
		if m.pf < m.end {
			m.touch(m.pf, e)
		}
		m.set(m.pf, e, func(v value) value { return mk(m.ps, v.maint()) })
		m.end = max(m.end, e)
	}
	m.last, m.pf, m.pt, m.ps = t, t, min(t+hold, inf), s
	m.recount()
}

func (m *model) fill(spans []edit) {
	slices.SortStableFunc(spans, func(x, y edit) int { return int(min(max(x.a-y.a, -1), 1)) })
	for _, e := range spans {
		if e.a >= e.b || e.s == Unknown {
			continue
		}
		m.touch(e.a, e.b)
		m.set(e.a, e.b, func(v value) value {
			if v.state() == Unknown {
				return mk(e.s, v.maint())
			}
			return v
		})
		m.end = max(m.end, e.b)
	}
	m.recount()
}

func (m *model) maint(a, b int64, on bool) {
	if a >= b {
		return
	}
	m.touch(a, min(b, m.end))
	m.set(a, b, func(v value) value { return mk(v.state(), on) })
	m.recount()
}

func (m *model) removed(t int64) {
	if m.pt > t {
		m.pt = max(m.pf, t)
	}
}

func (m *model) prune(c int64) {
	if m.pt <= c {
		m.pf = m.pt
	} else {
		m.pf = max(m.pf, c)
	}
	m.touch(c)
	for d := range m.flapped {
		if d+daySec <= c {
			delete(m.flapped, d)
			delete(m.dirty, d)
		}
	}
	m.set(0, c, func(value) value { return 0 })
	m.end = max(m.end, c)
	m.recount()
}

// recount turns the days with too many changes in the stored time into
// flapped days, as the record does: the changes before end, and the token
// the record writes at the start of the day after a flapped day.
func (m *model) recount() {
	for d := dayOf(m.t0); d < min(m.t0+m.n, m.end); d += daySec {
		if m.flapped[d] {
			continue
		}
		n := 0
		for x := d; x < min(d+daySec, m.end); x++ {
			if m.at(x) != m.at(x-1) {
				n++
			}
		}
		if m.flapped[d-daySec] && m.end > d && m.at(d) == m.at(d-1) {
			n++
		}
		m.maxDayChanges = max(m.maxDayChanges, n)
		if n > ExactChangesPerDay {
			m.flapped[d] = true
		}
	}
}

// stored says whether [a, b) overlaps the time of a flapped day the record
// keeps as buckets, and whether any such day is dirty.
func (m *model) stored(a, b int64) (flapping, dirty bool) {
	for d := dayOf(a); d < b; d += daySec {
		if m.flapped[d] && max(a, d) < min(b, d+daySec, m.end) {
			flapping = true
			dirty = dirty || m.dirty[d]
		}
	}
	// The last check's state over a flapped day's stored time is spread in
	// proportion within its buckets.
	if flapping && m.ps != Unknown && m.pf < m.end {
		for _, e := range []int64{m.pf, m.pt} {
			if d := dayOf(e); m.flapped[d] && e%bucketSec != 0 && e < m.end {
				dirty = true
			}
		}
	}
	return flapping, dirty
}

func (m *model) totals(a, b int64) Totals {
	var s secs
	for x := a; x < b; x++ {
		s.t[m.combined(x)]++
	}
	return s.totals()
}

func (m *model) outages(a, b int64) []Outage {
	var out []Outage
	for x := a; x < b; {
		if !m.combined(x).bad() {
			x++
			continue
		}
		s := x
		for s > m.t0 && m.combined(s-1).bad() {
			s--
		}
		o := Outage{Start: instant(s), Count: 1}
		e := s
		for ; e < b && m.combined(e).bad(); e++ {
			v := m.combined(e)
			o.Maintenance = o.Maintenance || v.maint()
			o.Full = o.Full || v.state() == Down
		}
		o.End, o.Duration, o.Ongoing = instant(e), time.Duration(e-s)*time.Second, e == b && m.combined(b).bad()
		out = append(out, o)
		x = e
	}
	return out
}
