package timeline

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// bucket is the time of one 15-minute bucket of a flapping day, per value:
// the values add up to the bucket's length. starts counts the outages (runs
// of bad time) that began in it; cont says the bucket begins inside one.
type bucket struct {
	t      [nValues]uint16
	starts uint16
	cont   bool
}

func (b *bucket) badTime() (bad, down, inMaint int64) {
	for u := range value(nValues) {
		if u.bad() {
			bad += int64(b.t[u])
			if u.state() == Down {
				down += int64(b.t[u])
			}
			if u.maint() {
				inMaint += int64(b.t[u])
			}
		}
	}
	return bad, down, inMaint
}

// dayBuckets is a flapping UTC day: its buckets up to upto (the day's end,
// or less while the day is still being written), and the value of its last
// second, which the next second continues from.
type dayBuckets struct {
	day  int64
	upto int64
	last value
	b    [nBuckets]bucket
}

// span returns bucket k's start and length.
func (d *dayBuckets) span(k int64) (start, length int64) {
	start = d.day + k*bucketSec
	return start, min(start+bucketSec, d.upto) - start
}

// add writes value v over [a, b), within the day and from d.upto on; prev
// is the value of the second before a.
func (d *dayBuckets) add(a, b int64, v, prev value) {
	if v.bad() && !prev.bad() {
		d.b[(a-d.day)/bucketSec].starts++
	}
	for x := a; x < b; {
		k := (x - d.day) / bucketSec
		bs := d.day + k*bucketSec
		y := min(b, bs+bucketSec)
		bk := &d.b[k]
		bk.t[v] += uint16(y - x)
		if x == bs && v.bad() && (x > a || prev.bad()) {
			bk.cont = true
		}
		x = y
	}
	d.upto, d.last = b, v
}

// addShares adds to acc the time of each value of bucket bk (of length l)
// in its offsets [x, y): a share of each value in proportion to the part of
// the bucket covered, rounded down, and the seconds that rounding left to
// the values with the largest remainders (Hamilton's method), so that the
// shares are whole seconds, never more than the value's time, and add up
// to y - x.
func addShares(acc *[nValues]int64, bk *bucket, x, y, l int64) {
	if x == 0 && y == l {
		for u := range nValues {
			acc[u] += int64(bk.t[u])
		}
		return
	}
	var s, rem [nValues]int64
	left := y - x
	for u := range nValues {
		t := int64(bk.t[u]) * (y - x)
		s[u], rem[u] = t/l, t%l
		left -= s[u]
	}
	for ; left > 0; left-- {
		best := -1
		for u := range nValues {
			if s[u] < int64(bk.t[u]) && (best < 0 || rem[u] > rem[best]) {
				best = u
			}
		}
		if best < 0 {
			break
		}
		s[best]++
		rem[best] = -1
	}
	for u := range nValues {
		acc[u] += s[u]
	}
}

// apply maps the values of the buckets' time in [a, b) through f. Time in a
// bucket that [a, b) covers in part moves in proportion: a flapping day no
// longer knows where in the bucket each value was.
func (d *dayBuckets) apply(a, b int64, f func(value) value) {
	a, b = max(a, d.day), min(b, d.upto)
	for x := a; x < b; {
		k := (x - d.day) / bucketSec
		bs, l := d.span(k)
		y := min(b, bs+l)
		bk := &d.b[k]
		var moved [nValues]int64
		addShares(&moved, bk, x-bs, y-bs, l)
		badBefore, _, _ := bk.badTime()
		for u := range value(nValues) {
			if w := f(u); w != u && moved[u] > 0 {
				bk.t[u] -= uint16(moved[u])
				bk.t[w] += uint16(moved[u])
			}
		}
		bad, _, _ := bk.badTime()
		switch {
		case bad == 0:
			bk.starts, bk.cont = 0, false
		case badBefore == 0 || bk.starts == 0 && !bk.cont:
			bk.starts = 1
		}
		bk.starts = uint16(min(int64(bk.starts), bad))
		x = y
	}
	if d.upto > a && d.upto <= b {
		d.last = f(d.last)
	}
}

// Each bucket is encoded as a header, uvarint: bit 0 starts > 0, bit 1 cont,
// bits 2-9 which values have time; then the time of each value present but
// the last (which is the bucket's length less the others), then starts.
// A bucket that is all up is one byte; a flapping up/down bucket three or
// four.
func appendBuckets(b []byte, d *dayBuckets) []byte {
	n := (d.upto - d.day + bucketSec - 1) / bucketSec
	for k := range n {
		bk := &d.b[k]
		h := uint64(0)
		if bk.starts > 0 {
			h |= 1
		}
		if bk.cont {
			h |= 2
		}
		last := -1
		for u := range nValues {
			if bk.t[u] > 0 {
				h |= 1 << (2 + u)
				last = u
			}
		}
		b = binary.AppendUvarint(b, h)
		for u := range last {
			if bk.t[u] > 0 {
				b = binary.AppendUvarint(b, uint64(bk.t[u]))
			}
		}
		if bk.starts > 0 {
			b = binary.AppendUvarint(b, uint64(bk.starts))
		}
	}
	return b
}

// readBuckets decodes the buckets of d up to d.upto (d.day and d.upto set)
// from data at off, checking every count against the bucket's length.
func readBuckets(data []byte, off int, d *dayBuckets) (int, error) {
	n := (d.upto - d.day + bucketSec - 1) / bucketSec
	for k := range n {
		_, l := d.span(k)
		bk := &d.b[k]
		*bk = bucket{}
		h, m := binary.Uvarint(data[off:])
		if m <= 0 || h >= 1<<10 || h>>2 == 0 {
			return 0, fmt.Errorf("bucket %d: bad header", k)
		}
		off += m
		mask := h >> 2
		last := 63 - bits.LeadingZeros64(mask)
		sum := int64(0)
		for u := range last {
			if mask&(1<<u) == 0 {
				continue
			}
			t, m := binary.Uvarint(data[off:])
			if m <= 0 || t == 0 || int64(t) >= l-sum {
				return 0, fmt.Errorf("bucket %d: bad time", k)
			}
			off += m
			bk.t[u] = uint16(t)
			sum += int64(t)
		}
		bk.t[last] = uint16(l - sum)
		bad, _, _ := bk.badTime()
		if h&1 != 0 {
			s, m := binary.Uvarint(data[off:])
			if m <= 0 || s == 0 || int64(s) > bad {
				return 0, fmt.Errorf("bucket %d: bad count", k)
			}
			off += m
			bk.starts = uint16(s)
		}
		bk.cont = h&2 != 0
		if bk.cont && bad == 0 {
			return 0, fmt.Errorf("bucket %d: continues an outage it has no time of", k)
		}
	}
	return off, nil
}
