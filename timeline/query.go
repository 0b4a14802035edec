package timeline

import (
	"sort"
	"time"
)

// Totals is a range's time by state. Up, Down, Partial and Unknown are the
// time outside maintenance; Maintenance is the time in maintenance, whatever
// the state. They add up to the range's length (times the number of records
// summed). Approximate is set when some of the time came from a flapping
// day, which is exact to its 15-minute edges only.
type Totals struct {
	Up, Down, Partial, Unknown, Maintenance time.Duration
	Approximate                             bool
}

// Add returns the sum of t and u: a location's time is the sum of its
// apps'.
func (t Totals) Add(u Totals) Totals {
	return Totals{Up: t.Up + u.Up, Down: t.Down + u.Down, Partial: t.Partial + u.Partial, Unknown: t.Unknown + u.Unknown,
		Maintenance: t.Maintenance + u.Maintenance, Approximate: t.Approximate || u.Approximate}
}

// Availability is Up / (Up + Down); ok is false when neither was seen.
func (t Totals) Availability() (a float64, ok bool) {
	if t.Up+t.Down == 0 {
		return 0, false
	}
	return float64(t.Up) / float64(t.Up+t.Down), true
}

// Coverage is the part of the time outside maintenance whose state is known:
// (Up + Down + Partial) / (range - Maintenance). ok is false when all the
// time was in maintenance.
func (t Totals) Coverage() (c float64, ok bool) {
	known := t.Up + t.Down + t.Partial
	if known+t.Unknown == 0 {
		return 0, false
	}
	return float64(known) / float64(known+t.Unknown), true
}

// secs is a range's seconds per value.
type secs struct {
	t      [nValues]int64
	approx bool
}

func (s *secs) add(p *piece, a, b int64) {
	if p.v != flap {
		s.t[p.v] += b - a
		return
	}
	s.approx = true
	d := p.d
	for x := a; x < b; {
		k := (x - d.day) / bucketSec
		bs, l := d.span(k)
		y := min(b, bs+l)
		addShares(&s.t, &d.b[k], x-bs, y-bs, l)
		x = y
	}
}

func (s *secs) totals() Totals {
	d := func(n int64) time.Duration { return time.Duration(n) * time.Second }
	m := s.t[maintBit] + s.t[maintBit|1] + s.t[maintBit|2] + s.t[maintBit|3]
	return Totals{Up: d(s.t[Up]), Down: d(s.t[Down]), Partial: d(s.t[Partial]), Unknown: d(s.t[Unknown]),
		Maintenance: d(m), Approximate: s.approx}
}

// Totals returns the time of [from, to) by state.
func (v View) Totals(from, to time.Time) Totals {
	lo, hi := sec(from), clampEnd(to.Unix())
	var t [1]Totals
	ta, tb, _, mid, ok := v.tallied(lo, hi)
	if !ok {
		v.AddSteps(t[:], []time.Time{from, to})
		return t[0]
	}
	if mid < hi {
		v.AddSteps(t[:], []time.Time{instant(mid), to})
	}
	return t[0].Add(tb.sub(ta).totals(mid - lo))
}

// tallied returns the tallies at lo and at mid, the end of the range's
// stored time that the last check's state does not cover: the time
// between them adds up from the two, the rest of the range is read. The
// tally at lo comes with the value of the time from lo on. ok is false
// when the range has no such time, or lo or mid falls inside a flapping
// day.
func (v *View) tallied(lo, hi int64) (ta, tb tally, cur value, mid int64, ok bool) {
	end := v.dataEnd()
	mid = min(hi, end)
	if v.projState != Unknown && v.projTo > v.projFrom {
		mid = min(mid, v.projFrom)
	}
	if mid <= lo || mid-lo >= 1<<32 {
		return ta, tb, cur, mid, false
	}
	var d *dayBuckets
	pa, pb := v.pointAt(lo), v.pointAt(mid)
	if ta, cur, ok = tallyAt(v.data, &pa, lo, end, &d); ok {
		tb, _, ok = tallyAt(v.data, &pb, mid, end, &d)
	}
	return ta, tb, cur, mid, ok
}

// pointAt returns the last point of the index, the stream's last token
// included, whose tally is at or before t: the stream's start if none.
func (v *View) pointAt(t int64) point {
	x := v.x
	if x == nil || len(x.idx) == 0 {
		return point{}
	}
	if x.tail.at() <= t {
		return x.tail
	}
	i := sort.Search(len(x.idx), func(i int) bool { return x.idx[i].at() > t })
	if i == 0 {
		return point{}
	}
	return x.idx[i-1]
}

// AddSteps adds to sum[i] the totals of the step [bounds[i], bounds[i+1])
// for every step, in one pass over the record: the steps may be days of any
// length (23 or 25 hours across a DST change), and summing many records'
// steps into one sum gives their location's. It panics unless
// len(sum) == len(bounds)-1 and the bounds are in order.
func (v View) AddSteps(sum []Totals, bounds []time.Time) {
	if len(bounds) < 2 && len(sum) == 0 {
		return
	}
	if len(sum) != len(bounds)-1 {
		panic("timeline: AddSteps needs one sum per step")
	}
	lo, hi := sec(bounds[0]), clampEnd(bounds[len(bounds)-1].Unix())
	for i := 1; i < len(bounds); i++ {
		if bounds[i].Before(bounds[i-1]) {
			panic("timeline: AddSteps bounds out of order")
		}
	}
	i := 0
	stepEnd := clampEnd(bounds[1].Unix())
	o := v.iter(lo, false)
	for lo < hi {
		p, ok := o.next()
		if !ok {
			break
		}
		a, b := max(p.a, lo), min(p.b, hi)
		for a < b {
			for stepEnd <= a && i < len(sum)-1 {
				i++
				stepEnd = clampEnd(bounds[i+1].Unix())
			}
			e := min(b, stepEnd)
			addPiece(&sum[i], &p, a, e)
			a = e
		}
		if p.b >= hi {
			break
		}
	}
}

// addPiece adds to t the piece's time in [a, b).
func addPiece(t *Totals, p *piece, a, b int64) {
	if p.v != flap {
		d := time.Duration(b-a) * time.Second
		switch {
		case p.v.maint():
			t.Maintenance += d
		case p.v == value(Up):
			t.Up += d
		case p.v == value(Down):
			t.Down += d
		case p.v == value(Partial):
			t.Partial += d
		default:
			t.Unknown += d
		}
		return
	}
	var s secs
	s.add(p, a, b)
	*t = t.Add(s.totals())
}

// Outage is a period of bad time: down (for a location: at least one app
// down), from Start to End. Duration is its bad time (End - Start unless it
// is approximate). A period that lasts past the queried range is Ongoing,
// and its End is the range's end.
//
// A flapping day's outages come one per 15-minute bucket in which some
// began (Count of them), joined with the buckets they continue into; they
// are Approximate, their Start and End at bucket edges.
type Outage struct {
	Start, End  time.Time
	Ongoing     bool
	Duration    time.Duration
	Maintenance bool // some of it was in maintenance
	Full        bool // some of it was Down: for a location, every app with a known state down; always so for apps
	Count       int  // outages it stands for: 1 unless approximate
	Approximate bool
}

// Outages returns the outages that overlap [from, to), oldest first, each
// whole: its Start may be before from.
func (v View) Outages(from, to time.Time) []Outage {
	lo, hi := sec(from), clampEnd(to.Unix())
	if lo >= hi {
		return nil
	}
	r := outageReader{lo: lo}
	o := v.iter(lo, true)
	r.read(&o, 0, hi)
	return r.out
}

// CountOutages returns what the Counts of the outages that overlap
// [from, to) add up to, and whether any of them is approximate: the
// figures of Outages, without making its list.
func (v View) CountOutages(from, to time.Time) (n int, approximate bool) {
	lo, hi := sec(from), clampEnd(to.Unix())
	if lo >= hi {
		return 0, false
	}
	r := outageReader{lo: lo, count: true}
	ta, tb, cur, mid, ok := v.tallied(lo, hi)
	if !ok || cur == flap {
		o := v.iter(lo, true)
		r.read(&o, 0, hi)
		return r.n, r.approx
	}
	d := tb.sub(ta)
	r.n, r.approx = int(d.outages), d.badFlaps > 0
	if ta.open && cur.bad() { // an outage goes on at lo: it counts whole
		r.n += int(ta.run)
		r.approx = r.approx || ta.runFlap
	}
	if mid < hi {
		// The outage going on at mid is counted so far; what it adds
		// from mid on is read, as are the outages after.
		r.run = outageRun{open: tb.open, end: mid}
		o := v.iter(mid, false)
		r.read(&o, mid, hi)
	}
	return r.n, r.approx
}

// outageReader reads the outages of pieces in order and lists them, or
// counts them.
type outageReader struct {
	run    outageRun
	lo     int64 // outages that end at or before lo are left out
	count  bool
	out    []Outage
	n      int
	approx bool
}

// read reads the pieces of o that are in [from, hi), from on a piece's
// edge or outside flapping days, and closes the outage going on at hi.
func (r *outageReader) read(o *overlay, from, hi int64) {
	atHi := false // bad time goes on at hi
	for {
		p, ok := o.next()
		if !ok {
			break
		}
		if p.b <= from {
			continue
		}
		p.a = max(p.a, from)
		if p.a >= hi {
			atHi = r.run.open && p.bad(p.a)
			break
		}
		b := min(p.b, hi)
		switch {
		case p.v == flap:
			r.buckets(&p, b)
		case p.v.bad():
			r.run.exact(p.a, b, p.v)
		default:
			r.close()
		}
		if p.b > hi {
			atHi = r.run.open && p.bad(hi)
			break
		}
	}
	if r.run.open && atHi && r.run.end == hi {
		r.run.ongoing = true
	}
	r.close()
}

// bad says whether the piece is bad at t: for a flapping day, whether an
// outage goes on into the bucket that t starts, or the bucket holding t
// has bad time.
func (p *piece) bad(t int64) bool {
	if p.v != flap {
		return p.v.bad()
	}
	k := (t - p.d.day) / bucketSec
	if k >= nBuckets {
		return false
	}
	if (t-p.d.day)%bucketSec == 0 {
		return p.d.b[k].cont
	}
	bad, _, _ := p.d.b[k].badTime()
	return bad > 0
}

// outageRun is the outage being read.
type outageRun struct {
	Outage
	open       bool
	start, end int64
	dur        int64
	ongoing    bool
}

func (r *outageRun) exact(a, b int64, v value) {
	if !r.open {
		*r = outageRun{open: true, start: a, Outage: Outage{Count: 1}}
	}
	r.end = b
	r.dur += b - a
	r.Maintenance = r.Maintenance || v.maint()
	r.Full = r.Full || v.state() == Down
}

// buckets reads a flapping day's piece up to b.
func (rd *outageReader) buckets(p *piece, b int64) {
	r := &rd.run
	d := p.d
	for x := p.a; x < b; {
		k := (x - d.day) / bucketSec
		bs, l := d.span(k)
		y := min(b, bs+l)
		bk := &d.b[k]
		var t [nValues]int64
		addShares(&t, bk, x-bs, y-bs, l)
		var bad, down, inMaint int64
		for u := range value(nValues) {
			if u.bad() {
				bad += t[u]
				if u.state() == Down {
					down += t[u]
				}
				if u.maint() {
					inMaint += t[u]
				}
			}
		}
		switch {
		case bad == 0:
			rd.close()
		case r.open && (bk.cont || x > bs):
			r.Count += int(bk.starts)
		default:
			rd.close()
			*r = outageRun{open: true, start: x, Outage: Outage{Count: max(int(bk.starts), 1)}}
		}
		if bad > 0 {
			r.end, r.dur = y, r.dur+bad
			r.Approximate = true
			r.Maintenance = r.Maintenance || inMaint > 0
			r.Full = r.Full || down > 0
		}
		x = y
	}
}

// close ends the outage being read and keeps it if it ends after lo.
func (rd *outageReader) close() {
	r := &rd.run
	if !r.open {
		return
	}
	switch {
	case r.end <= rd.lo && !r.ongoing:
	case rd.count:
		rd.n += r.Count
		rd.approx = rd.approx || r.Approximate
	default:
		o := r.Outage
		o.Start, o.End, o.Duration, o.Ongoing = instant(r.start), instant(r.end), time.Duration(r.dur)*time.Second, r.ongoing
		rd.out = append(rd.out, o)
	}
	*r = outageRun{}
}
