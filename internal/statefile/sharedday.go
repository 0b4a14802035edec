package statefile

import "math"

// Encoding 6 writes a day window relative to the one written before it:
// the apps one query answered, saved side by side, count the same checks
// and the same response times hour by hour when they were up or down
// together, and encoding 5 wrote the same 24 hours of counts, some 290
// bytes, again for every app. A day window is
//
//	uvarint  1: the window is the one before, hour for hour; else
//	         n<<1, n its hours that counted a check, each then as
//	varint   the hour in unix hours, less the hour before (0 for the
//	         first)
//	uvarint  1: the counts of the window before in that hour (which it
//	         must have); else up<<1, then as in encoding 4 the down,
//	         unavailable and measured counts and the response time sum
//
// The window before the system's is empty; the first location's follows
// the system's, and the first app's the last location's.

// fileHour is an hour of a day window as an Encoder writes it.
type fileHour struct {
	hour int64
	c    HourCounts
	set  bool
}

// writeDay writes the day window given since BeginDay, relative to the one
// before, and makes it the one the next is relative to.
func (e *Encoder) writeDay() {
	same := true
	n := 0
	for i := range e.refDay {
		if e.refDay[i].set {
			n++
		}
	}
	if n != len(e.dayHours) {
		same = false
	}
	for _, h := range e.dayHours {
		same = same && e.refDay[slotOf(h.hour)] == h
	}
	if same {
		e.uvarint(1)
		return
	}
	e.uvarint(uint64(len(e.dayHours)) << 1)
	var prev int64
	for _, h := range e.dayHours {
		e.varint(h.hour - prev)
		prev = h.hour
		if e.refDay[slotOf(h.hour)] == h {
			e.uvarint(1)
			continue
		}
		e.uvarint(h.c.Up << 1)
		e.uvarint(h.c.Down)
		e.uvarint(h.c.Unavailable)
		e.uvarint(h.c.RTN)
		e.uvarint(h.c.RTMicros)
	}
	e.refDay = [24]fileHour{}
	for _, h := range e.dayHours {
		e.refDay[slotOf(h.hour)] = h
	}
}

// slotOf is the slot of a day window that holds hour.
func slotOf(hour int64) int { return int((hour%24 + 24) % 24) }

// dayV6 reads a day window of encoding 6, relative to the one read before.
func (d *decoder) dayV6(w *Day) {
	defer func() { d.refDay = w }()
	h := d.Uvarint()
	if h&1 != 0 {
		switch {
		case h != 1:
			d.Fail("day window header %d", h)
		case d.refDay == nil: // the system's, after an empty one
			*w = Day{}
		default:
			*w = *d.refDay
		}
		return
	}
	n := h >> 1
	if n > uint64(len(w)) || n > uint64(d.Len()/2) {
		d.Fail("%d hours in a day window", n)
		return
	}
	var hour int64
	for range n {
		hour += d.Varint()
		up := d.Uvarint()
		if up == 1 {
			if r := d.refDay; r == nil || r[slotOf(hour)].Hour != hour || r[slotOf(hour)].C.total() == 0 {
				d.Fail("hour %d shares an hour the window before does not count", hour)
				return
			}
			d.putHour(w, hour, d.refDay[slotOf(hour)].C)
			continue
		}
		if up&1 != 0 || up>>1 > math.MaxInt64 {
			d.Fail("hour %d: up count word %d", hour, up)
			return
		}
		c := Counts{Up: int64(up >> 1), Down: d.int63(), Unavailable: d.int63(), RTN: d.int63()}
		c.RTSum = float64(d.Uvarint()) / 1e6
		d.putHour(w, hour, c)
	}
}
