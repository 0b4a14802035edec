package timeline

import "sort"

// A piece is the record over [a, b): one value, or, when v is flap, the
// part of a flapping day's buckets in [a, b). A piece from an iterator is
// valid until the iterator's next call.
type piece struct {
	a, b int64
	v    value
	d    *dayBuckets
}

// pieces walks a view's stored time in order: the stream's segments, the
// live day, then the unknown time after end with the maintenance marked
// there, up to the end of time.
type pieces struct {
	v     *View
	m     cursor
	pend  bool // the segment of the token before m.off is still to come
	phase uint8
	d     *dayBuckets // the buckets of the pending flap token
	buf   *dayBuckets // made when a flapping day is met: most records have none
	pos   int64
	mi    int
}

func (it *pieces) next() (piece, bool) {
	data := it.v.data
	for {
		switch it.phase {
		case 0:
			ps, pv := it.m.start, it.m.v1
			if it.pend && pv == flap {
				it.pend = false
				return piece{ps, ps + daySec, flap, it.d}, true
			}
			if int(it.m.off) >= len(data) {
				it.phase = 1
				if e := it.v.dataEnd(); it.pend && e > ps {
					return piece{ps, e, pv, nil}, true
				}
				continue
			}
			if readToken(data, &it.m) != nil {
				it.phase = 1 // cannot happen: a view holds a checked stream
				continue
			}
			if it.m.v1 == flap {
				if it.buf == nil {
					it.buf = new(dayBuckets)
				}
				it.buf.day, it.buf.upto = it.m.start, it.m.start+daySec
				off, err := readBuckets(data, int(it.m.off), it.buf)
				if err != nil {
					it.phase = 1
					continue
				}
				it.m.off, it.d = uint32(off), it.buf
			}
			pend := it.pend
			it.pend = true
			if pend && it.m.start > ps {
				return piece{ps, it.m.start, pv, nil}, true
			}
		case 1:
			it.phase, it.pos = 2, it.v.end
			if l := it.v.live(); l != nil && l.upto > l.day {
				return piece{l.day, l.upto, flap, l}, true
			}
		case 2:
			if it.pos >= inf {
				it.phase = 3
				continue
			}
			ms := it.v.maint()
			for it.mi < len(ms) && ms[it.mi].b <= it.pos {
				it.mi++
			}
			a := it.pos
			if it.mi < len(ms) && ms[it.mi].a <= a {
				it.pos = ms[it.mi].b
				return piece{a, it.pos, mk(Unknown, true), nil}, true
			}
			it.pos = inf
			if it.mi < len(ms) {
				it.pos = ms[it.mi].a
			}
			return piece{a, it.pos, value(Unknown), nil}, true
		default:
			return piece{}, false
		}
	}
}

// overlay gives the pieces of a view with the last check's state over the
// time it holds: what a check observed wins over what was filled in.
type overlay struct {
	raw      pieces
	pf, pt   int64
	s        State
	rest     piece // without its buckets, which restD names: storing the
	restD    uint8 // pointer would move every iterator to the heap
	haveRest bool
	buf      *dayBuckets
}

// keep holds p's part from a on, for the next call.
func (o *overlay) keep(p piece, a int64) {
	o.rest, o.haveRest, o.restD = piece{a, p.b, p.v, nil}, true, 0
	switch {
	case p.d == nil:
	case p.d == o.raw.v.live():
		o.restD = 2
	default:
		o.restD = 1
	}
}

func (o *overlay) next() (piece, bool) {
	var p piece
	if o.haveRest {
		p, o.haveRest = o.rest, false
		switch o.restD {
		case 1:
			p.d = o.raw.buf
		case 2:
			p.d = o.raw.v.live()
		}
	} else {
		var ok bool
		if p, ok = o.raw.next(); !ok {
			return p, false
		}
	}
	if o.s == Unknown || p.b <= o.pf || p.a >= o.pt {
		return p, true
	}
	if p.a < o.pf {
		o.keep(p, o.pf)
		p.b = o.pf
		return p, true
	}
	if p.b > o.pt {
		o.keep(p, o.pt)
		p.b = o.pt
	}
	if p.v != flap {
		p.v = mk(o.s, p.v.maint())
		return p, true
	}
	if o.buf == nil {
		o.buf = new(dayBuckets)
	}
	*o.buf = *p.d
	s := o.s
	o.buf.apply(p.a, p.b, func(v value) value { return mk(s, v.maint()) })
	p.d = o.buf
	return p, true
}

// iter returns an iterator at the piece that holds t, or (outage) at an
// earlier piece that is not bad, so that an outage holding t is seen whole.
func (v *View) iter(t int64, outage bool) overlay {
	o := overlay{raw: pieces{v: v, pend: true}}
	if v.projTo > v.projFrom {
		o.pf, o.pt, o.s = v.projFrom, v.projTo, v.projState
	}
	if !outage && t >= v.dataEnd() {
		o.raw.phase = 1 // nothing stored holds t: start after the stream
		return o
	}
	idx := v.idx()
	i := sort.Search(len(idx), func(i int) bool { return idx[i].start > t }) - 1
	for ; i >= 0; i-- {
		m := idx[i]
		if m.v1 == flap && (outage || m.start+daySec > t) || outage && m.v1.bad() {
			continue
		}
		break
	}
	if i >= 0 {
		// A flapping day's mark is past its buckets: its day, over
		// before t, is not read again.
		o.raw.m, o.raw.pend = cursor{mark: idx[i].mark}, idx[i].v1 != flap
	}
	return o
}

func (v *View) dataEnd() int64 {
	if l := v.live(); l != nil {
		return l.day
	}
	return v.end
}
