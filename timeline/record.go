package timeline

import (
	"slices"
	"time"
)

// Record is the time of one app, service or location, by state and
// maintenance. Its zero value is an empty record: all time unknown.
//
// A Record is not safe for concurrent use: one goroutine (the monitor's
// cycle) writes it. Readers take a View, which costs no allocation and does
// not change as the record goes on, so they never wait for the writer.
type Record struct {
	st stream
	x  *recordExtra // nil while the record has none of it, as most have not

	last      int64 // the last check's time, 0 before the first
	projFrom  int64 // the last check's state holds over [projFrom, projTo)
	projTo    int64
	projState State
}

// recordExtra is what few records have, apart behind one pointer for the
// reason streamExtra is. A record's extra part is its own, never shared.
type recordExtra struct {
	maint   []span // maintenance marked after st.end, sorted, apart; replaced, never written in place
	removed int64
}

// maint is the maintenance marked after the stream's end.
func (r *Record) maint() []span {
	if r.x == nil {
		return nil
	}
	return r.x.maint
}

// removed is when the entity was marked removed, 0 when it is not.
func (r *Record) removed() int64 {
	if r.x == nil {
		return 0
	}
	return r.x.removed
}

// setExtra sets the maintenance ahead and the removal, dropping the extra
// part when the record has neither.
func (r *Record) setExtra(maint []span, removed int64) {
	if maint == nil && removed == 0 {
		r.x = nil
		return
	}
	if r.x == nil {
		r.x = new(recordExtra)
	}
	r.x.maint, r.x.removed = maint, removed
}

func (r *Record) setMaint(maint []span)    { r.setExtra(maint, r.removed()) }
func (r *Record) setRemoved(removed int64) { r.setExtra(r.maint(), removed) }

type span struct{ a, b int64 }

// Check records a check made at t with the result s: s holds from t until
// the next check, at most for hold (a check made every interval is given
// twice the interval), and the time after that is unknown until a check or
// Fill says otherwise. What a check observed (up or down) wins over what
// Fill put there. Checks come in time order: a check before the last one
// is ignored, and one in the same second replaces it; so is a State other
// than the four constants.
func (r *Record) Check(t time.Time, s State, hold time.Duration) {
	ts := sec(t)
	if r.last > 0 && ts < r.last || s > Partial {
		return
	}
	r.seal(ts)
	h := max(int64(hold/time.Second), 1)
	r.last, r.projFrom, r.projTo, r.projState = ts, ts, min(ts+h, inf), s
}

// seal writes the last check's state over its time before b.
func (r *Record) seal(b int64) {
	a, e := r.projFrom, min(r.projTo, b)
	if r.projState == Unknown || a >= e {
		return
	}
	if a >= r.st.end {
		r.extend(a, Unknown)
		r.extend(e, r.projState)
		return
	}
	r.rebuild(0, max(r.st.end, e), []edit{{a: a, b: e, kind: editSet, s: r.projState}})
}

// Fill records what the backfill learnt of time this record did not
// observe: each span's state goes only where the record's time is unknown
// (never observed, or observed as unknown); observed up and down time is
// never overwritten, and a check later over the same time wins over it.
// Where spans overlap, the one that starts earlier wins. Maintenance marked
// over the time applies to it as to observed time.
//
// Fill rewrites the record: give it a range's spans at once.
func (r *Record) Fill(spans ...Span) {
	es := make([]edit, 0, len(spans))
	for _, sp := range spans {
		a, b := sec(sp.From), clampEnd(sp.To.Unix())
		if a < b && sp.State != Unknown && sp.State <= Partial {
			es = append(es, edit{a: a, b: b, kind: editFill, s: sp.State})
		}
	}
	slices.SortStableFunc(es, func(x, y edit) int { return int(min(max(x.a-y.a, -1), 1)) })
	out := es[:0]
	for _, e := range es {
		if n := len(out); n > 0 && e.a < out[n-1].b {
			if e.a = out[n-1].b; e.a >= e.b {
				continue
			}
		}
		out = append(out, e)
	}
	if len(out) > 0 {
		r.rebuild(0, max(r.st.end, out[len(out)-1].b), out)
	}
}

// SetMaintenance marks the time [from, to) as in maintenance (on) or not,
// in the past or the future. Marking a window ahead when it is set costs
// nothing per check; marking the past rewrites the record.
func (r *Record) SetMaintenance(from, to time.Time, on bool) {
	a, b := sec(from), clampEnd(to.Unix())
	if a >= b {
		return
	}
	if end := r.st.end; b > end {
		r.setMaint(editSpans(r.maint(), max(a, end), b, on))
	}
	if a < r.st.end {
		r.rebuild(0, r.st.end, []edit{{a: a, b: min(b, r.st.end), kind: editMaint, on: on}})
	}
}

// MarkMaintenance marks the time of each of spans (their State aside)
// as in maintenance, as SetMaintenance does one at a time, but rewrites
// the record once for all of them: many past occurrences of a window cost
// one rewrite.
func (r *Record) MarkMaintenance(spans ...Span) {
	es := make([]edit, 0, len(spans))
	ahead := slices.Clone(r.maint())
	for _, sp := range spans {
		a, b := sec(sp.From), clampEnd(sp.To.Unix())
		if a >= b {
			continue
		}
		if b > r.st.end {
			ahead = append(ahead, span{max(a, r.st.end), b})
		}
		if a < r.st.end {
			es = append(es, edit{a: a, b: min(b, r.st.end), kind: editMaint, on: true})
		}
	}
	slices.SortFunc(es, func(x, y edit) int { return int(min(max(x.a-y.a, -1), 1)) })
	out := es[:0]
	for _, e := range es {
		if n := len(out); n > 0 && e.a <= out[n-1].b {
			out[n-1].b = max(out[n-1].b, e.b)
			continue
		}
		out = append(out, e)
	}
	if len(ahead) > len(r.maint()) {
		r.setMaint(unionSpans(ahead))
	}
	if len(out) > 0 {
		r.rebuild(0, r.st.end, out)
	}
}

// unionSpans sorts l and joins its spans that overlap or touch, in place.
func unionSpans(l []span) []span {
	slices.SortFunc(l, func(x, y span) int { return int(min(max(x.a-y.a, -1), 1)) })
	out := l[:0]
	for _, x := range l {
		if n := len(out); n > 0 && x.a <= out[n-1].b {
			out[n-1].b = max(out[n-1].b, x.b)
			continue
		}
		out = append(out, x)
	}
	return out
}

// SetRemoved marks the record's entity as removed at t (from the
// configuration): its time from t on is unknown, the record is kept until
// pruned. The zero t clears the mark, as when the entity comes back.
func (r *Record) SetRemoved(t time.Time) {
	if t.IsZero() {
		r.setRemoved(0)
		return
	}
	removed := sec(t)
	r.setRemoved(removed)
	if r.projTo > removed {
		r.projTo = max(r.projFrom, removed)
	}
}

// Prune drops the time before before: it becomes unknown and costs nothing.
// A flapping day is dropped to its 15-minute buckets. It returns the bytes
// of stream it wrote afresh, so that a caller pruning many records can
// spread the work: 0 when the record held nothing before before, which is
// then not written afresh.
func (r *Record) Prune(before time.Time) (rewrote int) {
	c := sec(before)
	if r.projTo <= c {
		r.projFrom = r.projTo
	} else {
		r.projFrom = max(r.projFrom, c)
	}
	if r.st.first() < c {
		r.rebuild(c, max(r.st.end, c), nil)
		return len(r.st.data)
	}
	if c > r.st.end {
		r.st.put(c, value(Unknown))
		r.trimMaint()
	}
	return 0
}

// View returns the record as it is now, for readers: it shares the
// record's bytes and does not change when the record does.
func (r *Record) View() View {
	v := r.view()
	r.st.dataShared, r.st.idxShared, r.st.liveShared = true, true, true
	return v
}

func (r *Record) view() View {
	s := &r.st
	v := View{data: s.data[:len(s.data):len(s.data)], end: s.end,
		last: r.last, projFrom: r.projFrom, projTo: r.projTo, projState: r.projState}
	idx, live := s.idx(), s.live()
	if len(idx) > 0 || live != nil || len(r.maint()) > 0 || r.removed() != 0 {
		v.x = &viewExtra{idx: idx[:len(idx):len(idx)], live: live, maint: r.maint(), removed: r.removed()}
		if acc := s.acc(); acc != nil {
			v.x.tail = point{s.tok, *acc}
		}
	}
	return v
}

// Removed returns when the record's entity was marked removed, or the
// zero time.
func (r *Record) Removed() time.Time {
	if r.removed() == 0 {
		return time.Time{}
	}
	return instant(r.removed())
}

// View is a record as it was when taken: immutable, safe for concurrent
// use, and cheap (it shares the record's bytes). Its zero value is an empty
// record.
type View struct {
	data      []byte
	x         *viewExtra // nil for most records: a View is kept per entity and snapshot
	end       int64
	last      int64
	projFrom  int64
	projTo    int64
	projState State
}

// viewExtra is what few records have: an index (a stream of more than
// idxEvery bytes), a flapping day being written, maintenance marked ahead,
// a removal. Immutable.
type viewExtra struct {
	idx     []point
	tail    point // the stream's last token and its tally, when idx is set
	live    *dayBuckets
	maint   []span
	removed int64
}

func (v *View) idx() []point {
	if v.x == nil {
		return nil
	}
	return v.x.idx
}

func (v *View) live() *dayBuckets {
	if v.x == nil {
		return nil
	}
	return v.x.live
}

func (v *View) maint() []span {
	if v.x == nil {
		return nil
	}
	return v.x.maint
}

func (v *View) removed() int64 {
	if v.x == nil {
		return 0
	}
	return v.x.removed
}

// Removed returns when the entity was marked removed, or the zero time.
func (v View) Removed() time.Time {
	if v.removed() == 0 {
		return time.Time{}
	}
	return instant(v.removed())
}

// first is the start of the stream's first token, or of the live day, or
// inf when the stream holds nothing.
func (s *stream) first() int64 {
	if len(s.data) > 0 {
		var m cursor
		if readToken(s.data, &m) == nil {
			return m.start
		}
	}
	if live := s.live(); live != nil {
		return live.day
	}
	return inf
}

// extend writes state s over [end, b), in maintenance where it was marked.
func (r *Record) extend(b int64, s State) {
	maint := r.maint()
	i := 0 // maint before i ends before r.st.end, which only grows
	for r.st.end < b {
		m, next := false, int64(inf)
		for ; i < len(maint); i++ {
			x := maint[i]
			if x.b <= r.st.end {
				continue
			}
			if x.a <= r.st.end {
				m, next = true, x.b
			} else {
				next = x.a
			}
			break
		}
		r.st.put(min(b, next), mk(s, m))
	}
	r.trimMaint()
}

// trimMaint drops the maintenance marked before end: the stream holds it.
func (r *Record) trimMaint() {
	e := r.st.end
	maint := r.maint()
	i := 0
	for i < len(maint) && maint[i].b <= e {
		i++
	}
	if i == len(maint) && i > 0 {
		r.setMaint(nil)
		return
	}
	if i == 0 && (len(maint) == 0 || maint[0].a >= e) {
		return
	}
	n := slices.Clone(maint[i:])
	n[0].a = max(n[0].a, e)
	r.setMaint(n)
}

// editSpans returns a new list of the spans l with [a, b) added or removed.
func editSpans(l []span, a, b int64, on bool) []span {
	out := make([]span, 0, len(l)+2)
	add := span{a, b}
	for _, x := range l {
		switch {
		case on && (x.b < add.a || x.a > add.b):
			out = append(out, x)
		case on:
			add.a, add.b = min(add.a, x.a), max(add.b, x.b)
		case x.b <= a || x.a >= b:
			out = append(out, x)
		default:
			if x.a < a {
				out = append(out, span{x.a, a})
			}
			if x.b > b {
				out = append(out, span{b, x.b})
			}
		}
	}
	if on {
		i, _ := slices.BinarySearchFunc(out, add.a, func(x span, t int64) int { return int(min(max(x.a-t, -1), 1)) })
		out = slices.Insert(out, i, add)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

type editKind uint8

const (
	editFill editKind = iota
	editSet
	editMaint
)

// edit changes the values of [a, b): fills unknown time with s, sets the
// state s, or sets maintenance on or off.
type edit struct {
	a, b int64
	kind editKind
	s    State
	on   bool
}

func (e edit) apply(v value) value {
	switch e.kind {
	case editFill:
		if v.state() == Unknown {
			return mk(e.s, v.maint())
		}
	case editSet:
		return mk(e.s, v.maint())
	case editMaint:
		return mk(v.state(), e.on)
	}
	return v
}

// rebuild writes the record's stream afresh from cut to limit, with the
// edits (sorted, apart) applied; time before cut is dropped. Days that the
// edits give too many changes become buckets.
func (r *Record) rebuild(cut, limit int64, edits []edit) {
	v := r.view()
	// The new stream is about the old one's size: sized so at the start,
	// a rebuild allocates it once rather than growing it step by step.
	var ns stream
	asked, first := 0, 0
	if len(v.data) > 0 {
		asked = len(v.data) + rebuildSlack + min(len(v.data)/64, maxGrow/2)
		ns.data = make([]byte, 0, asked)
		first = cap(ns.data)
	}
	if n := len(v.data) / idxEvery; n > 0 { // a point every idxEvery bytes at most
		ns.setIdx(make([]point, 0, n+1))
	}
	it := pieces{v: &v, pend: true}
	ei := 0
	for {
		p, ok := it.next()
		if !ok || p.a >= limit {
			break
		}
		if p.b <= cut {
			continue
		}
		p.b = min(p.b, limit)
		if p.v == flap {
			d := *p.d
			d.dropBefore(cut)
			for _, e := range edits[ei:] {
				if e.a >= p.b {
					break
				}
				d.apply(max(e.a, p.a), min(e.b, p.b), e.apply)
			}
			if ns.end < d.day {
				ns.put(d.day, value(Unknown))
			}
			ns.putFlap(&d)
			continue
		}
		a := max(p.a, cut)
		if ns.end < a {
			ns.put(a, value(Unknown))
		}
		for a < p.b {
			for ei < len(edits) && edits[ei].b <= a {
				ei++
			}
			b, w := p.b, p.v
			if ei < len(edits) && edits[ei].a <= a {
				b, w = min(b, edits[ei].b), edits[ei].apply(p.v)
			} else if ei < len(edits) {
				b = min(b, edits[ei].a)
			}
			ns.put(b, w)
			a = b
		}
	}
	if ns.end < limit {
		ns.put(limit, value(Unknown))
	}
	ns.flush()
	ns.fit(asked, first)
	r.st = ns
	r.trimMaint()
}

// rebuildSlack and a 64th of the old stream's bytes (at most maxGrow/2)
// are the room a rebuilt stream has beyond the old one's, so that it is
// written into one array: a cut makes its first token longer, and the
// tokens written since the last packing (up to packEvery and a day's) take
// more bytes than the runs they become, a hundred or two in a long record.
// The room is kept with the stream, which grows into it.
const rebuildSlack = 32

// fit gives a stream just written its own array of its size if the one it
// was written into (asked for asked bytes, of capacity first) keeps unused
// more than its room and what a prune drops (a day of 400): when the array
// grew as the stream was written, or the stream came out shorter than the
// old one by more than about its room. Records are many and long-lived. An
// array the stream did not outgrow is otherwise kept: copied, it would
// mostly take the same size class, and the copy would be as much garbage
// as the stream.
func (s *stream) fit(asked, first int) {
	n := len(s.data)
	if cap(s.data) != first && cap(s.data)-n > rebuildSlack+n/64 || asked-n > rebuildSlack+2*min(n/64, maxGrow/2) {
		s.data = append([]byte(nil), s.data...)
	}
	if idx := s.idx(); cap(idx) > len(idx)+1 {
		if len(idx) == 0 {
			s.setIdx(nil)
		} else {
			s.setIdx(slices.Clip(slices.Clone(idx)))
		}
	}
}

// dropBefore makes the buckets that end at or before cut unknown.
func (d *dayBuckets) dropBefore(cut int64) {
	for k := int64(0); k < nBuckets; k++ {
		bs, l := d.span(k)
		if bs+bucketSec > cut || l <= 0 {
			return
		}
		d.b[k] = bucket{}
		d.b[k].t[Unknown] = uint16(l)
	}
}
