package availmon

import (
	"math"
	"time"
)

// appDayWindow is a dayWindow for one app, in 292 bytes instead of 1,152:
// there is one per app, so 10,000 apps save 8.6 MB (50,000, 43 MB). It was
// 480 bytes while each slot kept its own hour and a float64 sum of seconds;
// one hour for all slots and sums of 32-bit microseconds save 1.9 MB more.
//
// The slots share one hour: the window keeps the newest hour it holds, and
// slot i holds the hour ≡ i (mod 24) of the 24 hours up to it, so no slot
// needs an hour of its own. Moving to a newer hour empties the slots of the
// hours it skips. A check whose hour is older than the window's 24 hours
// means the clock went back by more than a day: the window starts afresh
// at that hour. The per-slot version did in effect the same, as its sum at
// that hour counted none of the newer hours. A past hour older than the
// window (addHour, set) has left it, and is dropped.
//
// An app is checked at most once a second (MinInterval), 3,600 times an
// hour, so an hour's counts fit 16 bits; they saturate at 65,535 should a
// program call Scrape more often than that. Response times are summed in
// whole microseconds, rounded as the history keeps each check's (the API
// rounds averages to the microsecond anyway). 32 bits suffice: the cycles
// of a monitor never overlap (cycleMu), so the response times of an app's
// checks in an hour add up to at most the hour plus one cycle, about 3.6e9
// µs of the 4.29e9 that fit. The sum saturates rather than wrap should a
// custom Source report response times no cycle could have taken.
type appDayWindow struct {
	slots  [24]appDaySlot
	newest int32 // unix hours; the newest hour the window holds
}

type appDaySlot struct {
	up, down, unavail, rtN uint16
	rtMicros               uint32 // over the rtN checks of the slot that measured one
}

func (w *appDayWindow) add(t time.Time, s Status, rt time.Duration) {
	h := t.Unix() / 3600
	if w.empty() || h <= int64(w.newest)-24 {
		*w = appDayWindow{newest: int32(h)}
	}
	w.advance(h)
	slot := &w.slots[mod(h, 24)]
	switch s {
	case StatusUp:
		slot.up = inc16(slot.up)
	case StatusDown:
		slot.down = inc16(slot.down)
	default:
		slot.unavail = inc16(slot.unavail)
		return
	}
	if slot.rtN < math.MaxUint16 { // past it, the sum would outgrow its count
		slot.rtMicros = add32(slot.rtMicros, checkMicros(rt))
		slot.rtN++
	}
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
		w.slots[mod(hr, 24)] = appDaySlot{}
	}
	w.newest = int32(h)
}

func (w *appDayWindow) sum(now time.Time) counts {
	h := now.Unix() / 3600
	n := int64(w.newest)
	var c counts
	for hr := max(n, h) - 23; hr <= min(n, h); hr++ {
		c.merge(w.counts(mod(hr, 24)))
	}
	return c
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
	w.slots[mod(hour, 24)].merge(s)
}

// hourAt is the hour slot i holds.
func (w *appDayWindow) hourAt(i int) int64 {
	n := int64(w.newest)
	return n - int64(mod(n-int64(i), 24))
}

func (w *appDayWindow) counts(i int) counts {
	s := &w.slots[i]
	return counts{up: int64(s.up), down: int64(s.down), unavailable: int64(s.unavail),
		rtSum: float64(s.rtMicros) / 1e6, rtN: int64(s.rtN)}
}

// slotOf is c as a slot holds it, saturated; a slot of no check is empty
// whatever else c says, so that an empty slot is all zero.
func slotOf(c counts) appDaySlot {
	c16 := func(n int64) uint16 { return uint16(min(max(n, 0), math.MaxUint16)) }
	s := appDaySlot{up: c16(c.up), down: c16(c.down), unavail: c16(c.unavailable)}
	if !s.empty() {
		s.rtN = c16(c.rtN)
		s.rtMicros = uint32(min(sumMicros(c.rtSum), math.MaxUint32))
	}
	return s
}

func (s appDaySlot) empty() bool { return s.up == 0 && s.down == 0 && s.unavail == 0 }

func (s *appDaySlot) merge(o appDaySlot) {
	s.up = add16(s.up, o.up)
	s.down = add16(s.down, o.down)
	s.unavail = add16(s.unavail, o.unavail)
	s.rtN = add16(s.rtN, o.rtN)
	s.rtMicros = add32(s.rtMicros, o.rtMicros)
}

// fitsHour reports whether unix hour h fits the window's int32.
func fitsHour(h int64) bool { return h >= math.MinInt32 && h <= math.MaxInt32 }

// inc16 is n+1, saturating.
func inc16(n uint16) uint16 { return add16(n, 1) }

// add16 and add32 are a+b, saturating.
func add16(a, b uint16) uint16 { return uint16(min(uint32(a)+uint32(b), math.MaxUint16)) }

func add32(a, b uint32) uint32 { return uint32(min(uint64(a)+uint64(b), math.MaxUint32)) }
