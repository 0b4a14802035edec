package timeline

import (
	"encoding/binary"
	"errors"
)

// A stream is the record's time written as changes: each token starts a
// segment of one value that lasts until the next token. Time before the
// first token is unknown; the last segment lasts until end, and time after
// end is unknown too (the record keeps maintenance marked beyond end apart).
//
// A token is a uvarint d >= 1: the segment starts d seconds after the last
// one and has the value the segment before the last had (an outage ending is
// one token of two bytes or so); or a zero byte and a uvarint d<<4 | value.
// A token whose value is flap is the whole UTC day it starts, kept as
// buckets (appendBuckets) that follow it; the next token starts at the end
// of that day.
//
// Segments are grouped by UTC day only to count changes: the day's tokens
// are turned into buckets when there are more than ExactChangesPerDay. The
// day being written then stays apart, in live, until the stream passes its
// end.
type stream struct {
	data []byte
	x    *streamExtra // nil while the stream has none of it, as most have not
	end  int64
	tok  mark // the decoder's state after the last token

	day      int64 // the UTC day of the last token
	dayMark  mark  // the decoder's state before the day's first token
	packMark mark  // the decoder's state where the tokens not yet packed into runs begin
	dayN     int32 // tokens in that day
	tailN    int32 // tokens after packMark
	cur      value // the value just before end

	// The bytes of data, idx and live are shared with views when set:
	// then they are never written in place, only appended to.
	dataShared, idxShared, liveShared bool
}

// streamExtra is what few streams have: an index (a stream of more than
// idxEvery bytes) and a flapping day being written. It is apart, behind
// one pointer, because there is a stream in the record of every app: the
// stream itself is then smaller, and holds fewer of the bytes that a
// collection scans, by the object, for their pointers.
type streamExtra struct {
	idx  []point // the decoder's state and the tally every ~idxEvery bytes, to start reading near an instant
	live *dayBuckets
	acc  *tally // the tally at tok, kept while there is an index
}

func (s *stream) idx() []point {
	if s.x == nil {
		return nil
	}
	return s.x.idx
}

func (s *stream) live() *dayBuckets {
	if s.x == nil {
		return nil
	}
	return s.x.live
}

func (s *stream) acc() *tally {
	if s.x == nil {
		return nil
	}
	return s.x.acc
}

// setExtra sets the stream's index, live day and tally, dropping the
// extra part when it holds none of them.
func (s *stream) setExtra(idx []point, live *dayBuckets, acc *tally) {
	if idx == nil && live == nil && acc == nil {
		s.x = nil
		return
	}
	if s.x == nil {
		s.x = new(streamExtra)
	}
	s.x.idx, s.x.live, s.x.acc = idx, live, acc
}

func (s *stream) setIdx(idx []point)       { s.setExtra(idx, s.live(), s.acc()) }
func (s *stream) setLive(live *dayBuckets) { s.setExtra(s.idx(), live, s.acc()) }
func (s *stream) setAcc(acc *tally)        { s.setExtra(s.idx(), s.live(), acc) }

// mark is a decoder's state between tokens: the offset of the next token,
// the start and value of the last token, and the value before that. The
// stream and its index keep marks (never inside a run).
type mark struct {
	start  int64
	off    uint32
	v1, v2 value
}

// cursor is a decoder's state, also inside a run: where its next change's
// bits start and how to read them.
type cursor struct {
	mark
	run runState
}

type runState struct {
	bit  uint32    // the bit of data[off:] the next change starts at
	min  [2]uint32 // the least gap of the next change's set, and of the other's
	left uint8     // the changes still to read; 0 out of a run
	k    uint8     // the Rice parameter of the next change (low nibble), and of the other's
}

const idxEvery = 1024

// maxGrow bounds the bytes a stream grows by beyond what it writes.
const maxGrow = 512

var errToken = errors.New("bad token")

// readToken decodes the token at m.off and advances m past it (not past a
// flap token's buckets).
func readToken(data []byte, m *cursor) error {
	if m.run.left > 0 {
		return readRun(data, m)
	}
	p := data[m.off:]
	x, n := binary.Uvarint(p)
	if n <= 0 {
		return errToken
	}
	v := m.v2
	if x == 0 {
		y, k := binary.Uvarint(p[n:])
		if k <= 0 {
			return errToken
		}
		n += k
		x, v = y>>4, value(y&15)
		if v == runTok {
			return startRun(data, m, x, n)
		}
	}
	if x == 0 || x > uint64(maxSec-m.start) || v > flap || v == m.v1 && v != flap {
		return errToken
	}
	m.start += int64(x)
	m.off += uint32(n)
	m.v2, m.v1 = m.v1, v
	return nil
}

// appendToken writes a token starting at start with value v.
func (s *stream) appendToken(start int64, v value) {
	d := uint64(start - s.tok.start)
	var b [binary.MaxVarintLen64 + 1]byte
	if v == s.tok.v2 && (v != s.tok.v1 || v == flap) {
		s.write(binary.AppendUvarint(b[:0], d)...)
	} else {
		s.write(binary.AppendUvarint(b[:1], d<<4|uint64(v))...)
	}
	if acc := s.acc(); acc != nil && s.tok.v1 != flap { // a flapping day was tallied when written
		acc.addExact(s.tok.start, start, s.tok.v1)
	}
	s.tok.start, s.tok.v2, s.tok.v1 = start, s.tok.v1, v
	s.tok.off = uint32(len(s.data))
	s.tailN++
}

// write appends bytes to data, growing it by an eighth at a time and by at
// most maxGrow: records are many and long-lived, so the slack of doubling
// would cost more than the copies, and a long record appended to a few
// bytes a day would keep an eighth of itself unused for weeks.
func (s *stream) write(b ...byte) {
	if cap(s.data)-len(s.data) < len(b) {
		n := make([]byte, len(s.data), len(s.data)+len(b)+min(len(s.data)/8, maxGrow)+16)
		copy(n, s.data)
		s.data, s.dataShared = n, false
	}
	s.data = append(s.data, b...)
}

// emit writes an exact token at start and counts it in its day; when the
// day has too many, the day becomes buckets (live), and emit reports that.
func (s *stream) emit(start int64, v value) (flapped bool) {
	if d := dayOf(start); s.dayN == 0 || d != s.day {
		if s.tailN >= packEvery {
			s.pack(s.tok, false)
		}
		s.day, s.dayN, s.dayMark = d, 0, s.tok
	}
	s.appendToken(start, v)
	s.dayN++
	if s.dayN > ExactChangesPerDay {
		s.flapDay()
		return true
	}
	s.maybeMark()
	return false
}

// maybeMark keeps the decoder's state after the last token when the last
// mark is idxEvery bytes behind.
func (s *stream) maybeMark() {
	idx := s.idx()
	last := uint32(0)
	if len(idx) > 0 {
		last = idx[len(idx)-1].off
	}
	if s.tok.off-last < idxEvery {
		return
	}
	acc := s.acc()
	if acc == nil {
		acc = new(tally)
		*acc = s.tallyAt(&point{}, s.tok)
		s.setAcc(acc)
	}
	p := point{s.tok, *acc}
	if s.idxShared {
		s.setIdx(append(idx[:len(idx):len(idx)], p))
		s.idxShared = false
		return
	}
	s.setIdx(append(idx, p))
}

// tallyAt reads the stream from p on to the tally at m, a mark after p.
func (s *stream) tallyAt(p *point, m mark) tally {
	var d *dayBuckets
	tl, _, _ := tallyAt(s.data, p, (&point{mark: m}).at(), s.end, &d) // cannot fail: the stream wrote these tokens
	return tl
}

// flapDay turns the tokens of the current day into buckets, up to end.
func (s *stream) flapDay() {
	d := &dayBuckets{day: s.day, upto: s.day}
	m := cursor{mark: s.dayMark}
	pos, v, prev := s.day, m.v1, m.v1
	if v == flap {
		v, prev = value(Unknown), value(Unknown)
	}
	for m.off < uint32(len(s.data)) {
		if readToken(s.data, &m) != nil {
			break // cannot happen: the stream wrote these tokens
		}
		if m.start > pos {
			d.add(pos, m.start, v, prev)
			pos = m.start
		}
		prev, v = v, m.v1
	}
	if s.end > pos {
		d.add(pos, s.end, v, prev)
	}
	d.upto, d.last = s.end, s.cur
	s.setLive(d)
	s.liveShared = false
	s.truncate(s.dayMark)
	s.tailN = max(s.tailN-s.dayN, 0)
	s.dayN = 0
}

// truncate drops the tokens after m, in place only if no view shares them.
func (s *stream) truncate(m mark) {
	if s.dataShared {
		n := make([]byte, m.off, int(m.off)+int(m.off)/8+16)
		copy(n, s.data)
		s.data, s.dataShared = n, false
	} else {
		s.data = s.data[:m.off]
	}
	s.dropIndexAfter(m.off)
	switch idx, acc := s.idx(), s.acc(); {
	case len(idx) == 0:
		s.setAcc(nil)
	case acc != nil:
		*acc = s.tallyAt(&idx[len(idx)-1], m)
	}
	s.tok = m
}

// finishLive writes the live day, complete, as a flap token.
func (s *stream) finishLive() {
	d := s.live()
	s.setLive(nil)
	s.emitFlap(d)
}

func (s *stream) emitFlap(d *dayBuckets) {
	s.appendToken(d.day, flap)
	var buf [nBuckets * 18]byte
	s.write(appendBuckets(buf[:0], d)...)
	s.tok.off = uint32(len(s.data))
	if acc := s.acc(); acc != nil {
		acc.addDay(d)
	}
	s.day, s.dayN = d.day, 0
	s.cur = flap
	s.maybeMark()
}

// put writes value v over [end, b).
func (s *stream) put(b int64, v value) {
	for s.end < b {
		if live := s.live(); live != nil {
			de := live.day + daySec
			if s.end >= de {
				s.finishLive()
				continue
			}
			if s.liveShared {
				c := *live
				live = &c
				s.setLive(live)
				s.liveShared = false
			}
			e := min(b, de)
			live.add(s.end, e, v, s.cur)
			s.cur, s.end = v, e
			continue
		}
		if v != s.cur && s.emit(s.end, v) {
			continue
		}
		s.cur, s.end = v, b
	}
}

// putFlap writes a flapping day whose time starts at end.
func (s *stream) putFlap(d *dayBuckets) {
	if s.live() != nil {
		s.finishLive()
	}
	if d.upto == d.day+daySec {
		s.emitFlap(d)
		s.end = d.upto
		return
	}
	c := *d
	s.setLive(&c)
	s.liveShared = false
	s.cur, s.end = d.last, d.upto
}

// dropIndexAfter drops the index points past byte off of the data, whose
// bytes are about to be rewritten. An index a view shares keeps no room
// past its end, so that the view never sees the writer's next points; one
// of its own keeps its room, so that the points a packing marks again
// (remark) go where they were rather than into a new array each time.
func (s *stream) dropIndexAfter(off uint32) {
	idx := s.idx()
	i := len(idx)
	for i > 0 && idx[i-1].off > off {
		i--
	}
	switch {
	case i == len(idx):
	case s.idxShared:
		s.setIdx(idx[:i:i])
		s.idxShared = false
	default:
		s.setIdx(idx[:i])
	}
}
