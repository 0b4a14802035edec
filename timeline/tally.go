package timeline

import "sort"

// A tally is what the stream's time before an instant adds up to: the
// seconds by state, and the outage count as Outages would give it, read
// from the stream's start. The index keeps one at each mark, so that a
// range's totals and outage count are the difference of two tallies and
// the reading of a short stretch at each edge, not of the whole range.
//
// Seconds and counts wrap around at 2^32 (flapping days at 2^16): the
// difference of two tallies less than 2^32 seconds apart is still exact,
// as no figure of a range grows faster than a second a second.
type tally struct {
	t        [4]uint32 // seconds up, down, partial outside maintenance; seconds in maintenance
	outages  uint32    // what the counts of the outages add up to
	run      uint32    // the count of the outage going on, so far
	flaps    uint16    // flapping days
	badFlaps uint16    // flapping days with bad time: their outages are approximate
	open     bool      // an outage goes on at the instant
	runFlap  bool      // the outage going on took in a flapping day's bad time
}

// sub returns the tally of the time between u and t, u the earlier.
func (t tally) sub(u tally) tally {
	for i := range t.t {
		t.t[i] -= u.t[i]
	}
	t.outages -= u.outages
	t.flaps -= u.flaps
	t.badFlaps -= u.badFlaps
	return t
}

// totals are the tally's seconds as Totals of a range n seconds long.
func (t tally) totals(n int64) Totals {
	var s secs
	s.t[Up], s.t[Down], s.t[Partial], s.t[maintBit] = int64(t.t[0]), int64(t.t[1]), int64(t.t[2]), int64(t.t[3])
	s.t[Unknown] = n - s.t[Up] - s.t[Down] - s.t[Partial] - s.t[maintBit]
	s.approx = t.flaps > 0
	return s.totals()
}

// addExact adds the segment [a, b) of value w (not flap), counting an
// outage as outageRun.exact does.
func (t *tally) addExact(a, b int64, w value) {
	if a >= b {
		return
	}
	d := uint32(b - a)
	switch {
	case w.maint():
		t.t[3] += d
	case w == value(Up):
		t.t[0] += d
	case w == value(Down):
		t.t[1] += d
	case w == value(Partial):
		t.t[2] += d
	}
	switch {
	case !w.bad():
		t.open = false
	case !t.open:
		t.outages++
		t.open, t.run, t.runFlap = true, 1, false
	}
}

// addDay adds a whole flapping day, counting its outages as
// outageRun.buckets does with whole buckets.
func (t *tally) addDay(d *dayBuckets) {
	t.flaps++
	anyBad := false
	for k := range d.b {
		bk := &d.b[k]
		for u := range value(nValues) {
			n := uint32(bk.t[u])
			switch {
			case u.maint():
				t.t[3] += n
			case u != value(Unknown):
				t.t[u-1] += n
			}
		}
		bad, _, _ := bk.badTime()
		switch {
		case bad == 0:
			t.open = false
			continue
		case t.open && bk.cont:
			t.outages += uint32(bk.starts)
			t.run += uint32(bk.starts)
		default:
			n := max(uint32(bk.starts), 1)
			t.outages += n
			t.open, t.run = true, n
		}
		t.runFlap, anyBad = true, true
	}
	if anyBad {
		t.badFlaps++
	}
}

// point is a mark of the index with the tally of the time before at().
type point struct {
	mark
	tally
}

// at is the instant the point's tally reaches: the start of its token,
// or, when the token is a flapping day, whose buckets the mark is past,
// that day's end.
func (p *point) at() int64 {
	if p.v1 == flap {
		return p.start + daySec
	}
	return p.start
}

// tallyAt reads data from p on to return the tally at t (at or after
// p.at(), at or before end, the end of data's time), and the value of the
// time from t on (flap on a flapping day). ok is false when t falls inside
// a flapping day, where the stream keeps no tally, or the data is bad.
// d holds a flapping day's buckets, allocated when one is met.
func tallyAt(data []byte, p *point, t, end int64, d **dayBuckets) (tl tally, cur value, ok bool) {
	tl, m := p.tally, cursor{mark: p.mark}
	a, w := m.start, m.v1
	if w == flap { // the tally holds the day: go on from its end
		a = m.start + daySec
		if int(m.off) >= len(data) {
			return tl, flap, t == a
		}
		if readToken(data, &m) != nil {
			return tl, 0, false
		}
		a, w = m.start, m.v1
	}
	for {
		if w == flap {
			if t < a+daySec {
				return tl, flap, t == a
			}
			if *d == nil {
				*d = new(dayBuckets)
			}
			(*d).day, (*d).upto = a, a+daySec
			off, err := readBuckets(data, int(m.off), *d)
			if err != nil {
				return tl, 0, false
			}
			tl.addDay(*d)
			m.off = uint32(off)
			if int(m.off) >= len(data) {
				return tl, flap, t == a+daySec
			}
		}
		e, more := end, int(m.off) < len(data)
		if more { // m moves past the next token, at e
			if readToken(data, &m) != nil {
				return tl, 0, false
			}
			e = m.start
		}
		if t < e || !more {
			tl.addExact(a, t, w)
			return tl, w, true
		}
		if w != flap {
			tl.addExact(a, e, w)
		}
		a, w = m.start, m.v1
	}
}

// edges are a range [lo, hi) and the tallies at lo and at mid, the end of
// the range's stored time that the last check's state does not cover: the
// time between lo and mid adds up from the two tallies, the rest of the
// range is read. cur is the value of the time from lo on. ok is false when
// the range has no such time, lo or mid falls inside a flapping day, or the
// record has no index: reading all of it costs no more.
type edges struct {
	lo, hi, mid int64
	a, b        tally
	cur         value
	ok          bool
}

func (v *View) edges(lo, hi int64) edges {
	e := edges{lo: lo, hi: hi}
	if len(v.idx()) == 0 {
		return e
	}
	end := v.dataEnd()
	e.mid = min(hi, end)
	if v.projState != Unknown && v.projTo > v.projFrom {
		e.mid = min(e.mid, v.projFrom)
	}
	if e.mid <= lo || e.mid-lo >= 1<<32 {
		return e
	}
	var d *dayBuckets
	pa, pb := v.pointAt(lo), v.pointAt(e.mid)
	if e.a, e.cur, e.ok = tallyAt(v.data, &pa, lo, end, &d); e.ok {
		e.b, _, e.ok = tallyAt(v.data, &pb, e.mid, end, &d)
	}
	return e
}

// pointAt returns the last point of the index (which it must have), the
// stream's last token included, whose tally is at or before t: the
// stream's start if none.
func (v *View) pointAt(t int64) point {
	x := v.x
	if x.tail.at() <= t {
		return x.tail
	}
	i := sort.Search(len(x.idx), func(i int) bool { return x.idx[i].at() > t })
	if i == 0 {
		return point{}
	}
	return x.idx[i-1]
}
