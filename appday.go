package availmon

import (
	"math"
	"time"

	"github.com/availmon/availmon/internal/statefile"
)

// appDayWindow is a dayWindow for one app, in 368 bytes instead of 1,152:
// there is one per app, so 10,000 apps save 8.1 MB (50,000, 41 MB). Slots
// that each kept their own hour and a float64 sum of seconds would take 480.
//
// The slots share one hour: the window keeps the newest hour it holds, and
// slot i holds the hour ≡ i (mod 24) of the 24 hours up to it, so no slot
// needs an hour of its own. Moving to a newer hour empties the slots of the
// hours it skips. A check 24 hours or more older than the newest means the
// clock went back by about a day or more: the window starts afresh at that
// hour. Slots with an hour each would come to the same: the sum of that
// hour would count none of the newer hours. A past hour older than the window
// (addHour, set) has left it, and is dropped.
//
// An app is checked at most once a second (MinInterval), 3,600 times an
// hour, so an hour's counts fit 16 bits; they saturate at 65,535 should a
// program call Scrape more often than that. Response times are summed in
// whole microseconds (windowRT), in 48 bits: a response_time_metric can say
// anything, and 32 bits (71 minutes) are filled by an hour of checks every
// second that each report 2 seconds. 48 bits hold 78 hours of response time
// an hour. A check that would overflow the sum, or its count, is counted as
// one that measured no response time (add reports it), so that the windows
// of its location and of the system, which remove it again when the app
// goes, count it the same way.
type appDayWindow struct {
	slots  [24]appDaySlot
	newest int32 // unix hours; the newest hour the window holds
	// total is the sum of the slots, kept as they change: every snapshot
	// asks for every app's day, and adding 24 slots for each was a tenth
	// of a cycle's work. 28 bytes an app (24 and the alignment).
	total dayTotal
}

// dayTotal is the sum of an app's 24 slots: at most 24 x 65,535 checks of
// each kind, and 24 x 48 bits of microseconds.
type dayTotal struct {
	up, down, unavail, rtN uint32
	us                     uint64
}

func (t *dayTotal) add(s *appDaySlot) {
	t.up += uint32(s.up)
	t.down += uint32(s.down)
	t.unavail += uint32(s.unavail)
	t.rtN += uint32(s.rtN)
	t.us += s.rtMicros()
}

func (t *dayTotal) sub(s *appDaySlot) {
	t.up -= uint32(s.up)
	t.down -= uint32(s.down)
	t.unavail -= uint32(s.unavail)
	t.rtN -= uint32(s.rtN)
	t.us -= s.rtMicros()
}

func (t *dayTotal) counts() counts {
	return counts{up: int64(t.up), down: int64(t.down), unavailable: int64(t.unavail),
		rtSum: float64(t.us) / 1e6, rtN: int64(t.rtN)}
}

// retotal sets the total from the slots, after a change of many of them.
func (w *appDayWindow) retotal() {
	w.total = dayTotal{}
	for i := range w.slots {
		w.total.add(&w.slots[i])
	}
}

type appDaySlot struct {
	up, down, unavail, rtN uint16
	rt                     [3]uint16 // microseconds, over the rtN checks of the slot that measured one: 48 bits, low first
}

// maxRTMicros is the most a slot's sum of response times holds.
const maxRTMicros = 1<<48 - 1

func (s *appDaySlot) rtMicros() uint64 {
	return uint64(s.rt[0]) | uint64(s.rt[1])<<16 | uint64(s.rt[2])<<32
}

func (s *appDaySlot) setRTMicros(us uint64) {
	us = min(us, maxRTMicros)
	s.rt = [3]uint16{uint16(us), uint16(us >> 16), uint16(us >> 32)}
}

// windowRT is a check's response time as the 24-hour windows count it: to
// the microsecond, as its history keeps it, and not below zero. The
// windows of the app, its location and the system take the same value, so
// that their averages agree and removing an app takes back what it added.
func windowRT(rt time.Duration) time.Duration {
	return max(rt, 0).Round(time.Microsecond)
}

// add counts a check. measured reports whether its response time rt (a
// windowRT) was counted: only an answered check's is, and not one that
// would overflow the slot's sum or count.
func (w *appDayWindow) add(t time.Time, s Status, rt time.Duration) (measured bool) {
	h := t.Unix() / 3600
	if w.empty() || h <= int64(w.newest)-24 {
		*w = appDayWindow{newest: int32(h)}
	}
	w.advance(h)
	slot := &w.slots[mod(h, 24)]
	switch s {
	case StatusUp:
		if slot.up < math.MaxUint16 {
			slot.up++
			w.total.up++
		}
	case StatusDown:
		if slot.down < math.MaxUint16 {
			slot.down++
			w.total.down++
		}
	default:
		if slot.unavail < math.MaxUint16 {
			slot.unavail++
			w.total.unavail++
		}
		return false
	}
	us := uint64(rt / time.Microsecond)
	if slot.rtN == math.MaxUint16 || us > maxRTMicros-slot.rtMicros() {
		return false
	}
	slot.setRTMicros(slot.rtMicros() + us)
	slot.rtN++
	w.total.rtN++
	w.total.us += us
	return true
}

// empty reports whether w holds no check. Every change leaves a check in
// the newest hour's slot, so only that slot need be looked at.
func (w *appDayWindow) empty() bool {
	return w.slots[mod(int64(w.newest), 24)].empty()
}

// advance makes h the newest hour if it is newer, emptying the slots of
// the hours that leave the window.
func (w *appDayWindow) advance(h int64) {
	n := int64(w.newest)
	if h <= n {
		return
	}
	for hr := max(n+1, h-23); hr <= h; hr++ {
		slot := &w.slots[mod(hr, 24)]
		w.total.sub(slot)
		*slot = appDaySlot{}
	}
	w.newest = int32(h)
}

// sum adds the hours in (h-24, h] of now's hour h. Every snapshot sums
// every app's window: in the hour of its newest check, the usual case, the
// window holds exactly those hours and their total is kept; otherwise the
// slots are added as integers and converted once.
func (w *appDayWindow) sum(now time.Time) counts {
	h := now.Unix() / 3600
	n := int64(w.newest)
	if h == n {
		return w.total.counts()
	}
	var up, down, unavail, rtN, us uint64
	for hr := max(n, h) - 23; hr <= min(n, h); hr++ {
		s := &w.slots[mod(hr, 24)]
		up += uint64(s.up)
		down += uint64(s.down)
		unavail += uint64(s.unavail)
		rtN += uint64(s.rtN)
		us += s.rtMicros()
	}
	return counts{up: int64(up), down: int64(down), unavailable: int64(unavail),
		rtSum: float64(us) / 1e6, rtN: int64(rtN)}
}

// window is w as a dayWindow, to merge into or remove from the windows of
// locations and the system. Slots that hold no check are left at hour 0,
// as a dayWindow's never written are, so that merge passes them by.
func (w *appDayWindow) window() *dayWindow {
	var out dayWindow
	for i := range w.slots {
		if !w.slots[i].empty() {
			out[i].hour, out[i].c = w.hourAt(i), w.counts(i)
		}
	}
	return &out
}

// set makes w hold what d holds (a window restored from a store): the hours
// of the 24 up to its newest, counts past 16 bits kept at the most 16 bits
// hold. Hours no int32 holds are dropped, as no clock reaches them.
func (w *appDayWindow) set(d *dayWindow) {
	*w = appDayWindow{}
	newest, found := int64(0), false
	for i := range d {
		if h := d[i].hour; fitsHour(h) && !slotOf(d[i].c).empty() && (!found || h > newest) {
			newest, found = h, true
		}
	}
	if !found {
		return
	}
	w.newest = int32(newest)
	for i := range d {
		if h := d[i].hour; h > newest-24 && h <= newest {
			w.slots[mod(h, 24)].merge(slotOf(d[i].c))
		}
	}
	w.retotal()
}

// addHour adds c to hour's slot, as dayWindow.addHour does: an hour newer
// than the window moves it on, one older than it is dropped.
func (w *appDayWindow) addHour(hour int64, c counts) {
	s := slotOf(c)
	switch {
	case s.empty() || !fitsHour(hour):
		return
	case w.empty():
		w.newest = int32(hour)
	case hour <= int64(w.newest)-24:
		return
	}
	w.advance(hour)
	slot := &w.slots[mod(hour, 24)]
	w.total.sub(slot)
	slot.merge(s)
	w.total.add(slot)
}

// redate moves the window's hours by step, to the nearest hour (a clock
// that was set: followClock). A window moved past what int32 hours hold
// is dropped, as no clock reaches them.
func (w *appDayWindow) redate(step time.Duration) {
	k := hoursOf(step)
	if k == 0 || w.empty() {
		return
	}
	newest := int64(w.newest) + k
	if !fitsHour(newest) {
		*w = appDayWindow{}
		return
	}
	old := w.slots
	for i := range old {
		w.slots[mod(int64(i)+k, 24)] = old[i]
	}
	w.newest = int32(newest) // the same slots: the same total
}

// hourAt is the hour slot i holds.
func (w *appDayWindow) hourAt(i int) int64 {
	n := int64(w.newest)
	return n - int64(mod(n-int64(i), 24))
}

func (w *appDayWindow) counts(i int) counts {
	s := &w.slots[i]
	return counts{up: int64(s.up), down: int64(s.down), unavailable: int64(s.unavail),
		rtSum: float64(s.rtMicros()) / 1e6, rtN: int64(s.rtN)}
}

// slotOf is c as a slot holds it, saturated; a slot of no check is empty
// whatever else c says, so that an empty slot is all zero.
func slotOf(c counts) appDaySlot {
	c16 := func(n int64) uint16 { return uint16(min(max(n, 0), math.MaxUint16)) }
	s := appDaySlot{up: c16(c.up), down: c16(c.down), unavail: c16(c.unavailable)}
	if !s.empty() {
		s.rtN = c16(c.rtN)
		s.setRTMicros(statefile.SumMicros(c.rtSum))
	}
	return s
}

func (s appDaySlot) empty() bool { return s.up == 0 && s.down == 0 && s.unavail == 0 }

func (s *appDaySlot) merge(o appDaySlot) {
	s.up = add16(s.up, o.up)
	s.down = add16(s.down, o.down)
	s.unavail = add16(s.unavail, o.unavail)
	s.rtN = add16(s.rtN, o.rtN)
	s.setRTMicros(s.rtMicros() + o.rtMicros())
}

// fitsHour reports whether unix hour h fits the window's int32.
func fitsHour(h int64) bool { return h >= math.MinInt32 && h <= math.MaxInt32 }

// add16 is a+b, saturating.
func add16(a, b uint16) uint16 { return uint16(min(uint32(a)+uint32(b), math.MaxUint16)) }
