package timeline

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Errors of UnmarshalBinary, wrapped with what was wrong.
var (
	ErrCorrupt = errors.New("timeline: corrupt record")
	ErrVersion = errors.New("timeline: unknown record encoding")
)

// encoding is the version of the binary form AppendBinary writes:
//
//	version      byte, 2 (1: the same without runs, read too)
//	flags        uvarint: 1 a live (flapping, unfinished) day follows the stream, 2 removed
//	end          uvarint, seconds since 1970
//	last check   uvarint (0: none)
//	projection   uvarint from, uvarint length (0: none), byte state
//	removed      uvarint, if flagged
//	stream       uvarint length, then the stream's tokens (see stream and run)
//	live day     uvarint day number, uvarint seconds written, byte last value, its buckets
//	maintenance  uvarint count, then per span uvarint gap (from end, or the span before), uvarint length
const encoding = 2

// AppendBinary appends the record's binary form to b.
func (v View) AppendBinary(b []byte) ([]byte, error) {
	flags := uint64(0)
	if v.live() != nil {
		flags |= 1
	}
	if v.removed() != 0 {
		flags |= 2
	}
	b = append(b, encoding)
	b = binary.AppendUvarint(b, flags)
	b = binary.AppendUvarint(b, uint64(v.end))
	b = binary.AppendUvarint(b, uint64(v.last))
	pf, pl := v.projFrom, v.projTo-v.projFrom
	if pl <= 0 {
		pf, pl = 0, 0
	}
	b = binary.AppendUvarint(b, uint64(pf))
	b = binary.AppendUvarint(b, uint64(pl))
	b = append(b, byte(v.projState))
	if v.removed() != 0 {
		b = binary.AppendUvarint(b, uint64(v.removed()))
	}
	b = binary.AppendUvarint(b, uint64(len(v.data)))
	b = append(b, v.data...)
	if l := v.live(); l != nil {
		b = binary.AppendUvarint(b, uint64(l.day/daySec))
		b = binary.AppendUvarint(b, uint64(l.upto-l.day))
		b = append(b, byte(l.last))
		b = appendBuckets(b, l)
	}
	b = binary.AppendUvarint(b, uint64(len(v.maint())))
	prev := v.end
	for _, m := range v.maint() {
		a := max(m.a, v.end)
		b = binary.AppendUvarint(b, uint64(a-prev))
		b = binary.AppendUvarint(b, uint64(m.b-a))
		prev = m.b
	}
	return b, nil
}

// reader reads an encoding without trusting it.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s at byte %d", ErrCorrupt, what, r.off)
	}
}

func (r *reader) uvarint(what string, max uint64) uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 || x > max {
		r.fail(what)
		return 0
	}
	r.off += n
	return x
}

func (r *reader) byte(what string, max byte) byte {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.b) || r.b[r.off] > max {
		r.fail(what)
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

// UnmarshalBinary replaces the record with the one encoded in data. It
// checks every count, time and order against the rest, and refuses what
// AppendBinary could not have written with an error wrapping ErrCorrupt
// (ErrVersion for another version); the record is then unchanged.
func (r *Record) UnmarshalBinary(data []byte) error {
	if len(data) == 0 || data[0] == 0 || data[0] > encoding {
		return fmt.Errorf("%w (version byte %v)", ErrVersion, data[:min(len(data), 1)])
	}
	rd := &reader{b: data, off: 1}
	var n Record
	flags := rd.uvarint("flags", 3)
	n.st.end = int64(rd.uvarint("end", inf))
	n.last = int64(rd.uvarint("last check", maxSec))
	n.projFrom = int64(rd.uvarint("projection", maxSec))
	n.projTo = n.projFrom + int64(rd.uvarint("projection length", uint64(inf-n.projFrom)))
	n.projState = State(rd.byte("projection state", byte(Partial)))
	if flags&2 != 0 {
		removed := int64(rd.uvarint("removed", maxSec))
		if removed < minSec {
			rd.fail("removed")
		}
		n.setRemoved(removed)
	}
	ln := rd.uvarint("stream length", uint64(len(data)))
	if ln > uint64(len(data)-rd.off) {
		rd.fail("stream length")
	}
	if rd.err != nil {
		return rd.err
	}
	n.st.data = data[rd.off : rd.off+int(ln) : rd.off+int(ln)]
	rd.off += int(ln)
	if flags&1 != 0 {
		n.st.setLive(rd.live())
	}
	n.setMaint(rd.maint(n.st.end))
	if rd.err == nil && rd.off != len(data) {
		rd.fail("trailing bytes")
	}
	if rd.err == nil {
		if err := n.st.check(data[0] >= 2); err != nil {
			rd.err = fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
	}
	if rd.err != nil {
		return rd.err
	}
	n.rebuild(0, n.st.end, nil) // writes a stream of its own, with its index

	*r = n
	return nil
}

func (rd *reader) live() *dayBuckets {
	d := &dayBuckets{}
	d.day = int64(rd.uvarint("live day", maxSec/daySec)) * daySec
	d.upto = d.day + int64(rd.uvarint("live length", daySec))
	d.last = value(rd.byte("live value", byte(flap-1)))
	if rd.err != nil {
		return nil
	}
	if d.upto == d.day || d.day < minSec {
		rd.fail("live day")
		return nil
	}
	off, err := readBuckets(rd.b, rd.off, d)
	if err != nil {
		rd.fail(err.Error())
		return nil
	}
	rd.off = off
	if d.b[(d.upto-1-d.day)/bucketSec].t[d.last] == 0 {
		rd.fail("live value not in its last bucket")
	}
	return d
}

func (rd *reader) maint(end int64) []span {
	cnt := rd.uvarint("maintenance count", uint64(len(rd.b)))
	if cnt > uint64(len(rd.b)-rd.off)/2 {
		rd.fail("maintenance count")
	}
	var l []span
	prev := end
	for i := range cnt {
		gap := int64(rd.uvarint("maintenance gap", uint64(inf-prev)))
		if i > 0 && gap == 0 {
			rd.fail("maintenance spans touch")
		}
		a := prev + gap
		length := int64(rd.uvarint("maintenance length", uint64(inf-a)))
		if length == 0 {
			rd.fail("empty maintenance span")
		}
		if rd.err != nil {
			return nil
		}
		l = append(l, span{a, a + length})
		prev = a + length
	}
	return l
}

// check walks a stream read from outside: tokens in order and in range, at
// most ExactChangesPerDay in a day, runs (if runs) only before the last
// day, a flapping day on a day's start, its buckets whole, the token after
// it at the next day's start, and the stream ending before end or the live
// day.
func (s *stream) check(runs bool) error {
	var m cursor
	lastFlap := false
	day, dayN, runDay := int64(-1), 0, int64(-1)
	for int(m.off) < len(s.data) || m.run.left > 0 {
		prev := m
		if err := readToken(s.data, &m); err != nil {
			return fmt.Errorf("token at byte %d: %v", prev.off, err)
		}
		if m.run.left > 0 || prev.run.left > 0 {
			if !runs {
				return fmt.Errorf("token at byte %d: a run in encoding 1", prev.off)
			}
			runDay = dayOf(m.start)
		}
		if d := dayOf(m.start); d != day {
			day, dayN = d, 0
		}
		if dayN++; dayN > ExactChangesPerDay {
			return fmt.Errorf("token at byte %d: more than %d changes in a day", prev.off, ExactChangesPerDay)
		}
		if m.start < minSec {
			return fmt.Errorf("token at byte %d: before 1970-01-02", prev.off)
		}
		if lastFlap && m.start != prev.start+daySec {
			return fmt.Errorf("token at byte %d: a flapping day not followed by the next day", prev.off)
		}
		lastFlap = m.v1 == flap
		if lastFlap {
			d := dayBuckets{day: m.start, upto: m.start + daySec}
			if m.start%daySec != 0 {
				return fmt.Errorf("token at byte %d: a flapping day not on a day", prev.off)
			}
			off, err := readBuckets(s.data, int(m.off), &d)
			if err != nil {
				return fmt.Errorf("flapping day at byte %d: %v", prev.off, err)
			}
			m.off = uint32(off)
		}
	}
	limit := dayOf(m.start)
	live := s.live()
	if live != nil {
		limit = live.day
	}
	switch {
	case runDay >= limit:
		return errors.New("a run holds the last day")
	case live != nil && s.end != live.upto:
		return errors.New("the live day does not end at the end")
	case live != nil && lastFlap && m.start+daySec != live.day,
		live != nil && !lastFlap && m.off > 0 && m.start >= live.day:
		return errors.New("the stream does not end at the live day")
	case live == nil && lastFlap:
		return errors.New("the stream ends with a flapping day")
	case live == nil && m.off > 0 && m.start >= s.end:
		return errors.New("the stream ends after its end")
	}
	return nil
}
