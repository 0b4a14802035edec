package timeline

import (
	"encoding/binary"
	"math/bits"
)

// A run is a sequence of changes that each go back to the value before
// the last (an outage starting, an outage ending), their gaps coded in
// bits rather than bytes: the worst case of a record, an app with many
// outages every day of a year, then costs about a byte and a half a change
// instead of two.
//
// A run is the escape token (a zero byte, then uvarint d<<4 | runTok):
// its first change, d seconds after the last token; then a byte n (the
// changes that follow, 1 to maxRun), a byte of two Rice parameters (low
// nibble for the 1st, 3rd... change that follows, high nibble for the
// 2nd, 4th...), two uvarints, the least gap of each of those two sets,
// and the n gaps less their set's least, Rice-coded (the quotient in
// unary, ones ended by a zero, then the parameter's low bits), least
// significant bit first, padded with zeros to a byte. Outage lengths and
// the times between outages each have a set, so each gets a parameter of
// its own.
//
// Runs hold complete days only, never the day of the stream's last token
// (nor the live day's): the day being written stays in tokens, which a
// flapping day truncates. They are made by packing the stream's tokens
// when packEvery have been written since the last packing, at the start
// of a day, and at the end of a rebuild.
const (
	runTok    value = flap + 1
	maxRun          = 255     // changes after a run's first
	maxRunGap       = 1 << 18 // the longest gap in a run, about 3 days: longer ends it
	maxQuot         = 255     // the longest unary quotient
	minRun          = 8       // shorter sequences stay tokens: a run's head costs more
	packEvery       = 2 * maxRun
)

// startRun reads the head of a run whose escape token, of n bytes, gave
// the gap x of its first change.
func startRun(data []byte, m *cursor, x uint64, n int) error {
	off := int(m.off) + n
	if off+2 > len(data) {
		return errToken
	}
	cnt, ks := data[off], data[off+1]
	off += 2
	var mins [2]uint32
	for i := range mins {
		y, k := binary.Uvarint(data[off:])
		if k <= 0 || y == 0 || y > maxRunGap {
			return errToken
		}
		mins[i], off = uint32(y), off+k
	}
	v := m.v2
	if cnt == 0 || x == 0 || x > uint64(maxSec-m.start) || v == m.v1 || v >= flap {
		return errToken
	}
	m.start += int64(x)
	m.off = uint32(off)
	m.v2, m.v1 = m.v1, v
	m.run = runState{min: mins, left: cnt, k: ks}
	return nil
}

// readRun reads the next change of the run m is in.
func readRun(data []byte, m *cursor) error {
	p := data[m.off:]
	pos := int(m.run.bit)
	k := int(m.run.k & 15)
	if i := pos >> 3; i+8 <= len(p) { // most changes: one word holds their bits
		w := binary.LittleEndian.Uint64(p[i:]) >> (pos & 7)
		if q := bits.TrailingZeros64(^w); q+1+k <= 56 {
			return m.change(q, w>>(q+1)&(1<<k-1), pos+q+1+k)
		}
	}
	q := 0
	for {
		i := pos >> 3
		if i >= len(p) {
			return errToken
		}
		ones := bits.TrailingZeros8(^(p[i] >> (pos & 7)))
		if left := 8 - pos&7; ones < left {
			q, pos = q+ones, pos+ones+1
			break
		} else {
			q, pos = q+left, pos+left
		}
		if q > maxQuot {
			return errToken
		}
	}
	low, ok := bitsAt(p, pos, k)
	if !ok {
		return errToken
	}
	return m.change(q, low, pos+k)
}

// change moves m past a change of its run with quotient q and low bits
// low, whose bits end at bit end.
func (m *cursor) change(q int, low uint64, end int) error {
	r := &m.run
	x := uint64(r.min[0]) + (uint64(q)<<(r.k&15) | low)
	v := m.v2
	if q > maxQuot || x > maxRunGap || x > uint64(maxSec-m.start) || v == m.v1 || v >= flap {
		return errToken
	}
	m.start += int64(x)
	m.v2, m.v1 = m.v1, v
	if r.left--; r.left == 0 {
		m.off += uint32((end + 7) >> 3)
		*r = runState{}
		return nil
	}
	r.bit = uint32(end)
	r.k = r.k>>4 | r.k<<4
	r.min[0], r.min[1] = r.min[1], r.min[0]
	return nil
}

// bitsAt returns the n (at most 15) bits of p from bit pos.
func bitsAt(p []byte, pos, n int) (uint64, bool) {
	i, e := pos>>3, (pos+n+7)>>3
	if e > len(p) {
		return 0, false
	}
	var w uint64
	for j := e - 1; j >= i; j-- {
		w = w<<8 | uint64(p[j])
	}
	return w >> (pos & 7) & (1<<n - 1), true
}

// bitWriter appends bits to b, least significant first.
type bitWriter struct {
	b   []byte
	acc uint64
	n   uint
}

func (w *bitWriter) put(x uint64, n uint) {
	w.acc |= x << w.n
	for w.n += n; w.n >= 8; w.n -= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
	}
}

func (w *bitWriter) close() []byte {
	if w.n > 0 {
		w.b = append(w.b, byte(w.acc))
	}
	return w.b
}

// riceParams returns the least of every other of gaps (from the first)
// and the Rice parameter that codes them less it in the fewest bits, with
// quotients of at most maxQuot: of those near the log of their mean, where
// the best lies.
func riceParams(gaps []int64) (least int64, k uint) {
	if len(gaps) == 0 {
		return 1, 0
	}
	least, most := gaps[0], gaps[0]
	n := int64(0)
	for i := 0; i < len(gaps); i += 2 {
		least, most = min(least, gaps[i]), max(most, gaps[i])
		n++
	}
	sum := int64(0)
	for i := 0; i < len(gaps); i += 2 {
		sum += gaps[i] - least
	}
	lo := uint(0)
	for (most-least)>>lo > maxQuot {
		lo++
	}
	est := uint(max(bits.Len64(uint64(sum/n))-1, 0))
	best := -1
	for c := max(est, lo+1) - 1; c <= min(max(est+1, lo), 15); c++ {
		if (most-least)>>c > maxQuot {
			continue
		}
		bitsN := int(n) * int(c+1)
		for i := 0; i < len(gaps); i += 2 {
			bitsN += int((gaps[i] - least) >> c)
		}
		if best < 0 || bitsN < best {
			best, k = bitsN, c
		}
	}
	return least, k
}

// appendRun appends a run of the changes with gaps (the first its head,
// the others at most maxRunGap, 2 to maxRun+1 of them) if it takes fewer
// than limit bytes, and reports whether it did. It writes nothing
// otherwise, so that a packing in place may write the run over the very
// tokens it replaces: the run ends before them.
func appendRun(b []byte, gaps []int64, limit int) ([]byte, bool) {
	head := uint64(gaps[0])<<4 | uint64(runTok)
	rest := gaps[1:]
	la, ka := riceParams(rest)
	lb, kb := riceParams(rest[min(1, len(rest)):])
	if len(rest) < 2 {
		lb, kb = 1, 0
	}
	bitsN := 0
	for i, g := range rest {
		least, k := la, ka
		if i%2 == 1 {
			least, k = lb, kb
		}
		bitsN += int(uint64(g-least)>>k) + 1 + int(k)
	}
	size := 3 + uvarintLen(head) + uvarintLen(uint64(la)) + uvarintLen(uint64(lb)) + (bitsN+7)/8
	if size >= limit {
		return b, false
	}
	b = append(b, 0)
	b = binary.AppendUvarint(b, head)
	b = append(b, byte(len(rest)), byte(ka|kb<<4))
	b = binary.AppendUvarint(b, uint64(la))
	b = binary.AppendUvarint(b, uint64(lb))
	w := bitWriter{b: b}
	for i, g := range rest {
		least, k := la, ka
		if i%2 == 1 {
			least, k = lb, kb
		}
		y := uint64(g - least)
		for q := y >> k; q > 0; {
			c := min(q, 32)
			w.put(1<<c-1, uint(c))
			q -= c
		}
		w.put(0, 1)
		w.put(y&(1<<k-1), k)
	}
	return w.close(), true
}

// uvarintLen is the bytes binary.AppendUvarint writes for x.
func uvarintLen(x uint64) int {
	return (bits.Len64(x|1) + 6) / 7
}

// packTokens returns data's tokens between marks from and to (boundaries
// of tokens, not in a run) written again, with runs where they take fewer
// bytes, the mark it stopped at and how many tokens it read. Unless all, it
// stops before a last sequence of changes that could go on in a run after
// to, so that runs are mostly of maxRun changes. It cannot fail on tokens
// the stream wrote; on anything else it returns the bytes as they were
// (unless inPlace).
//
// inPlace, it writes them over data from from on, allocating nothing: what
// it writes never takes more bytes than what it has read, so it never
// overwrites a token before reading it.
func packTokens(data []byte, from, to mark, all, inPlace bool) (out []byte, stop mark, n int) {
	if inPlace {
		out = data[from.off:from.off]
	} else {
		out = make([]byte, 0, to.off-from.off)
	}
	var gaps [maxRun + 1]int64
	var seqMark mark // before the sequence's first token
	seqN, seqEnd := 0, uint32(0)
	finish := func() { // writes the sequence, as a run if it is worth it
		raw := data[seqMark.off:seqEnd]
		ok := false
		if seqN >= minRun {
			out, ok = appendRun(out, gaps[:seqN], len(raw))
		}
		if !ok {
			out = append(out, raw...)
		}
		seqN = 0
	}
	m := cursor{mark: from}
	for m.off < to.off {
		p := m
		if readToken(data, &m) != nil || m.run.left > 0 {
			return data[from.off:to.off], to, 0
		}
		n++
		if m.v1 == flap {
			d := dayBuckets{day: m.start, upto: m.start + daySec}
			off, err := readBuckets(data, int(m.off), &d)
			if err != nil {
				return data[from.off:to.off], to, 0
			}
			m.off = uint32(off)
		}
		gap := m.start - p.start
		alt := m.v1 == p.v2 && m.v1 != p.v1 && m.v1 < flap
		if seqN > 0 && (!alt || gap > maxRunGap) {
			finish()
		}
		if !alt {
			out = append(out, data[p.off:m.off]...)
			continue
		}
		if seqN == 0 {
			seqMark = p.mark
		}
		gaps[seqN], seqN, seqEnd = gap, seqN+1, m.off
		if seqN == len(gaps) {
			finish()
		}
	}
	if seqN > 0 && !all {
		return out, seqMark, n - seqN
	}
	if seqN > 0 {
		finish()
	}
	return out, to, n
}

// pack writes the tokens between the last packing and to (a mark of a
// token boundary at or before dayMark, after packMark) with runs; unless
// all, it leaves the changes at the end that could join a run to come.
func (s *stream) pack(to mark, all bool) {
	from := s.packMark
	if to.off <= from.off {
		return
	}
	p, stop, n := packTokens(s.data, from, to, all, !s.dataShared)
	s.packMark = stop
	s.tailN = max(s.tailN-int32(n), 0)
	if len(p) >= int(stop.off-from.off) {
		return
	}
	to = stop
	shrink := to.off - from.off - uint32(len(p))
	size := len(s.data) - int(shrink)
	if s.dataShared {
		d := make([]byte, 0, size+min(size/64, maxGrow)+16)
		s.data = append(append(append(d, s.data[:from.off]...), p...), s.data[to.off:]...)
		s.dataShared = false
	} else { // packed in place: the tokens after to move down
		copy(s.data[int(from.off)+len(p):], s.data[to.off:])
		s.data = s.data[:size]
	}
	s.packMark.off -= shrink
	s.tok.off -= shrink
	if s.dayMark.off >= to.off {
		s.dayMark.off -= shrink
	}
	s.dropIndexAfter(from.off)
	s.remark(from)
}

// remark adds index points between the last one and tok, at boundaries
// of tokens and runs idxEvery bytes apart, as maybeMark would have had the
// stream been written so: a packing drops the points in what it packed.
func (s *stream) remark(from mark) {
	last := uint32(0)
	if idx := s.idx(); len(idx) > 0 {
		last = idx[len(idx)-1].off
	}
	c := cursor{mark: from} // a boundary at or after the last point: points are idxEvery bytes apart
	if s.tok.off-last < idxEvery {
		c.off = s.tok.off
	}
	var d dayBuckets
	for c.off < s.tok.off {
		if readToken(s.data, &c) != nil {
			return // cannot happen: the stream wrote these tokens
		}
		if c.v1 == flap {
			d.day, d.upto = c.start, c.start+daySec
			off, err := readBuckets(s.data, int(c.off), &d)
			if err != nil {
				return
			}
			c.off = uint32(off)
		}
		if c.run.left > 0 || c.off-last < idxEvery || c.off >= s.tok.off {
			continue
		}
		idx := s.idx()
		var p point
		if n := len(idx); n > 0 {
			p = idx[n-1]
		}
		if s.idxShared {
			idx, s.idxShared = idx[:len(idx):len(idx)], false
		}
		s.setIdx(append(idx, point{c.mark, s.tallyAt(&p, c.mark)}))
		last = c.off
	}
	s.maybeMark()
}

// flush packs the complete days the stream holds, all but the day of its
// last token.
func (s *stream) flush() {
	to := s.tok
	if s.dayN > 0 {
		to = s.dayMark
	}
	s.pack(to, true)
}
