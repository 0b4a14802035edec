package history

import (
	"math"
	"time"

	"github.com/availmon/availmon/internal/statefile"
)

// Counts are check outcomes summed over some span.
type Counts struct {
	Up, Down, Unavailable int64
	RTSum                 float64 // seconds, over the RTN checks that measured one
	// RTN is how many checks RTSum is over: every answered check of this
	// process; checks filled in from a backend's past have no response time.
	RTN int64
}

// Add counts a check; its response time rt only when measured.
func (c *Counts) Add(s Status, rt time.Duration, measured bool) {
	switch s {
	case Up:
		c.Up++
	case Down:
		c.Down++
	default:
		c.Unavailable++
		return
	}
	if measured {
		c.RTSum += rt.Seconds()
		c.RTN++
	}
}

// Merge adds o to c.
func (c *Counts) Merge(o Counts) {
	c.Up += o.Up
	c.Down += o.Down
	c.Unavailable += o.Unavailable
	c.RTSum += o.RTSum
	c.RTN += o.RTN
}

// Total is how many checks c counts.
func (c Counts) Total() int64 { return c.Up + c.Down + c.Unavailable }

// Day counts checks per clock hour over the last 24 hours, so that a
// 24h summary costs 24 additions whatever the uptime. The window is the
// current hour and the 23 before it.
type Day [24]struct {
	Hour int64 // unix hours; which hour the slot holds
	C    Counts
}

// Add counts a check at t; its response time rt only when measured.
func (w *Day) Add(t time.Time, s Status, rt time.Duration, measured bool) {
	h := t.Unix() / 3600
	slot := &w[mod(h, 24)]
	if slot.Hour != h {
		slot.Hour, slot.C = h, Counts{}
	}
	slot.C.Add(s, rt, measured)
}

// Sum adds the hours in (h-24, h] of now's hour h.
func (w *Day) Sum(now time.Time) Counts {
	h := now.Unix() / 3600
	var c Counts
	for i := range w {
		if w[i].Hour > h-24 && w[i].Hour <= h {
			c.Merge(w[i].C)
		}
	}
	return c
}

// Redate moves the window's hours by step, to the nearest hour, as
// AppDay.Redate does.
func (w *Day) Redate(step time.Duration) {
	k := hoursOf(step)
	if k == 0 {
		return
	}
	old := *w
	*w = Day{}
	for i := range old {
		if h := old[i].Hour + k; old[i].C != (Counts{}) {
			w[mod(h, 24)].Hour, w[mod(h, 24)].C = h, old[i].C
		}
	}
}

// Remove takes o's counts out of w, hour by hour; Merge adds them. Slots
// that hold different hours are left alone: the older hour has left the
// window already.
func (w *Day) Remove(o *Day) {
	for i := range w {
		if w[i].Hour == o[i].Hour {
			c := &w[i].C
			c.Up -= o[i].C.Up
			c.Down -= o[i].C.Down
			c.Unavailable -= o[i].C.Unavailable
			c.RTSum -= o[i].C.RTSum
			c.RTN -= o[i].C.RTN
		}
	}
}

func (w *Day) Merge(o *Day) {
	for i := range w {
		switch {
		case o[i].Hour == 0 && o[i].C.Total() == 0:
		case w[i].Hour == o[i].Hour:
			w[i].C.Merge(o[i].C)
		case w[i].Hour < o[i].Hour:
			w[i].Hour, w[i].C = o[i].Hour, o[i].C
		}
	}
}

// AddHour adds c to hour's slot; a slot that holds an older hour is
// replaced, one that holds a newer hour is left alone (hour has left the
// window).
func (w *Day) AddHour(hour int64, c Counts) {
	slot := &w[mod(hour, 24)]
	switch {
	case slot.Hour == hour:
		slot.C.Merge(c)
	case slot.Hour < hour:
		slot.Hour, slot.C = hour, c
	}
}

// DayOfFile is d in the monitor's types.
func DayOfFile(d *statefile.Day) Day {
	var w Day
	for i, h := range d {
		w[i].Hour = h.Hour
		w[i].C = Counts{Up: h.C.Up, Down: h.C.Down, Unavailable: h.C.Unavailable, RTSum: h.C.RTSum, RTN: h.C.RTN}
	}
	return w
}

// FileCounts is c as a state file keeps it.
func FileCounts(c Counts) statefile.Counts {
	return statefile.Counts{Up: c.Up, Down: c.Down, Unavailable: c.Unavailable, RTSum: c.RTSum, RTN: c.RTN}
}

// FileDay is w as a state file keeps it.
func FileDay(w *Day) statefile.Day {
	var d statefile.Day
	for i := range w {
		d[i] = statefile.Hour{Hour: w[i].Hour, C: FileCounts(w[i].C)}
	}
	return d
}

// AppDay is a Day for one app, in 232 bytes instead of 1,152:
// there is one per app, so 100,000 apps save 92 MB. Slots that each kept
// their own hour and a float64 sum of seconds would take 480.
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
// hour, so an hour's Counts fit 16 bits; they saturate at 65,535 should a
// program call Scrape more often than that. Response times are summed in
// whole microseconds (WindowRT), in 48 bits: a response_time_metric can say
// anything, and 32 bits (71 minutes) are filled by an hour of checks every
// second that each report 2 seconds. 48 bits hold 78 hours of response time
// an hour. A check that would overflow the sum, or its count, is counted as
// one that measured no response time (add reports it), so that the windows
// of its location and of the system, which remove it again when the app
// goes, count it the same way.
//
// Most hours of most apps are alike: every check up, and each measured a
// response time. Such an hour is its up count and its sum (hours, 8
// bytes); what other hours hold besides (checks down or unavailable, or
// not measured) is kept apart (odd), only while one of the window's hours
// has any: 136 bytes an app less than 14-byte slots. The odd part is never
// changed once made, but replaced, so that a copy of an AppDay (a save's
// cut, persist.go) is a copy: it shares the odd part it had, and the
// window it was copied from goes on with new ones.
type AppDay struct {
	dayCore
	odd *oddHours // nil while no hour of the window is odd
}

// dayCore is an AppDay without its odd part: no pointers, so that AppDays
// keeps it where a collection does not look.
type dayCore struct {
	hours  [24]upHour
	newest int32 // unix hours; the newest hour the window holds
	// total is the sum of the slots, kept as they change: every snapshot
	// asks for every app's day, and adding 24 slots for each was a tenth
	// of a cycle's work. 28 bytes an app (24 and the alignment).
	total dayTotal
}

// upHour is an hour's up count and its sum of response times in
// microseconds: 48 bits, low first.
type upHour struct {
	up uint16
	rt [3]uint16
}

// oddHour is what an hour holds besides its upHour: zero when every
// check was up and measured. unmeasured is up-rtN, modulo 2^16, so that
// up checks that measured a response time leave it as it is.
type oddHour struct{ down, unavail, unmeasured uint16 }

type oddHours [24]oddHour

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

func (t *dayTotal) counts() Counts {
	return Counts{Up: int64(t.up), Down: int64(t.down), Unavailable: int64(t.unavail),
		RTSum: float64(t.us) / 1e6, RTN: int64(t.rtN)}
}

// retotal sets the total from the slots, after a change of many of them.
func (w *AppDay) retotal() {
	w.total = dayTotal{}
	for i := range w.hours {
		s := w.slot(i)
		w.total.add(&s)
	}
}

// appDaySlot is what one hour of an AppDay holds, its upHour and its
// oddHour together.
type appDaySlot struct {
	up, down, unavail, rtN uint16
	rt                     [3]uint16 // microseconds, over the rtN checks of the slot that measured one: 48 bits, low first
}

// slot is the hour of slot i.
func (w *AppDay) slot(i int) appDaySlot {
	h := &w.hours[i]
	s := appDaySlot{up: h.up, rtN: h.up, rt: h.rt}
	if w.odd != nil {
		o := &w.odd[i]
		s.down, s.unavail, s.rtN = o.down, o.unavail, h.up-o.unmeasured
	}
	return s
}

// setSlot makes slot i hold s, replacing the odd part when it changes.
func (w *AppDay) setSlot(i int, s appDaySlot) {
	w.hours[i] = upHour{up: s.up, rt: s.rt}
	o := oddHour{down: s.down, unavail: s.unavail, unmeasured: s.up - s.rtN}
	var was oddHour
	if w.odd != nil {
		was = w.odd[i]
	}
	if o == was {
		return
	}
	odd := new(oddHours)
	if w.odd != nil {
		*odd = *w.odd
	}
	odd[i] = o
	w.setOdd(odd)
}

// setOdd makes odd the window's odd part, none when no hour is odd.
func (w *AppDay) setOdd(odd *oddHours) {
	if *odd == (oddHours{}) {
		odd = nil
	}
	w.odd = odd
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

func (h *upHour) rtMicros() uint64 {
	return uint64(h.rt[0]) | uint64(h.rt[1])<<16 | uint64(h.rt[2])<<32
}

// WindowRT is a check's response time as the 24-hour windows count it: to
// the microsecond, as its history keeps it, and not below zero. The
// windows of the app, its location and the system take the same value, so
// that their averages agree and removing an app takes back what it added.
func WindowRT(rt time.Duration) time.Duration {
	return max(rt, 0).Round(time.Microsecond)
}

// Add counts a check. measured reports whether its response time rt (a
// WindowRT) was counted: only an answered check's is, and not one that
// would overflow the slot's sum or count.
func (w *AppDay) Add(t time.Time, s Status, rt time.Duration) (measured bool) {
	h := t.Unix() / 3600
	if w.empty() || h <= int64(w.newest)-24 {
		*w = AppDay{dayCore: dayCore{newest: int32(h)}}
	}
	w.advance(h)
	i := mod(h, 24)
	us := uint64(rt / time.Microsecond)
	if hr := &w.hours[i]; s == Up && w.odd == nil && hr.up < math.MaxUint16 && us <= maxRTMicros-hr.rtMicros() {
		// The common case: an hour of up checks that all measured one.
		sum := hr.rtMicros() + us
		hr.up++
		hr.rt = [3]uint16{uint16(sum), uint16(sum >> 16), uint16(sum >> 32)}
		w.total.up++
		w.total.rtN++
		w.total.us += us
		return true
	}
	slot := w.slot(i)
	defer func() { w.setSlot(i, slot) }()
	switch s {
	case Up:
		if slot.up < math.MaxUint16 {
			slot.up++
			w.total.up++
		}
	case Down:
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
func (w *AppDay) empty() bool {
	i := mod(int64(w.newest), 24)
	if w.hours[i].up != 0 {
		return false
	}
	return w.odd == nil || (w.odd[i].down == 0 && w.odd[i].unavail == 0)
}

// advance makes h the newest hour if it is newer, emptying the slots of
// the hours that leave the window.
func (w *AppDay) advance(h int64) {
	n := int64(w.newest)
	if h <= n {
		return
	}
	var odd *oddHours // replaces w.odd when an odd hour leaves
	for hr := max(n+1, h-23); hr <= h; hr++ {
		i := mod(hr, 24)
		slot := w.slot(i)
		w.total.sub(&slot)
		w.hours[i] = upHour{}
		if w.odd != nil && w.odd[i] != (oddHour{}) {
			if odd == nil {
				odd = new(oddHours)
				*odd = *w.odd
			}
			odd[i] = oddHour{}
		}
	}
	if odd != nil {
		w.setOdd(odd)
	}
	w.newest = int32(h)
}

// Sum adds the hours in (h-24, h] of now's hour h. Every snapshot sums
// every app's window: in the hour of its newest check, the usual case, the
// window holds exactly those hours and their total is kept; otherwise the
// slots are added as integers and converted once.
func (w *AppDay) Sum(now time.Time) Counts {
	h := now.Unix() / 3600
	n := int64(w.newest)
	if h == n {
		return w.total.counts()
	}
	var up, down, unavail, rtN, us uint64
	for hr := max(n, h) - 23; hr <= min(n, h); hr++ {
		s := w.slot(mod(hr, 24))
		up += uint64(s.up)
		down += uint64(s.down)
		unavail += uint64(s.unavail)
		rtN += uint64(s.rtN)
		us += s.rtMicros()
	}
	return Counts{Up: int64(up), Down: int64(down), Unavailable: int64(unavail),
		RTSum: float64(us) / 1e6, RTN: int64(rtN)}
}

// Window is w as a Day, to merge into or remove from the windows of
// locations and the system. Slots that hold no check are left at hour 0,
// as a Day's never written are, so that merge passes them by.
func (w *AppDay) Window() *Day {
	var out Day
	for i := range w.hours {
		if s := w.slot(i); !s.empty() {
			out[i].Hour, out[i].C = w.hourAt(i), s.counts()
		}
	}
	return &out
}

// Set makes w hold what d holds (a window restored from a store): the hours
// of the 24 up to its newest, Counts past 16 bits kept at the most 16 bits
// hold. Hours no int32 holds are dropped, as no clock reaches them.
func (w *AppDay) Set(d *Day) {
	*w = AppDay{}
	newest, found := int64(0), false
	for i := range d {
		if h := d[i].Hour; fitsHour(h) && !slotOf(d[i].C).empty() && (!found || h > newest) {
			newest, found = h, true
		}
	}
	if !found {
		return
	}
	w.newest = int32(newest)
	var slots [24]appDaySlot
	for i := range d {
		if h := d[i].Hour; h > newest-24 && h <= newest {
			slots[mod(h, 24)].merge(slotOf(d[i].C))
		}
	}
	w.setSlots(&slots)
	w.retotal()
}

// setSlots makes w's hours those of slots, with one odd part for them all.
func (w *AppDay) setSlots(slots *[24]appDaySlot) {
	odd := new(oddHours)
	for i, s := range slots {
		w.hours[i] = upHour{up: s.up, rt: s.rt}
		odd[i] = oddHour{down: s.down, unavail: s.unavail, unmeasured: s.up - s.rtN}
	}
	w.setOdd(odd)
}

// AddHour adds c to hour's slot, as Day.AddHour does: an hour newer
// than the window moves it on, one older than it is dropped.
func (w *AppDay) AddHour(hour int64, c Counts) {
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
	i := mod(hour, 24)
	slot := w.slot(i)
	w.total.sub(&slot)
	slot.merge(s)
	w.total.add(&slot)
	w.setSlot(i, slot)
}

// Redate moves the window's hours by step, to the nearest hour (a clock
// that was set: followClock). A window moved past what int32 hours hold
// is dropped, as no clock reaches them.
func (w *AppDay) Redate(step time.Duration) {
	k := hoursOf(step)
	if k == 0 || w.empty() {
		return
	}
	newest := int64(w.newest) + k
	if !fitsHour(newest) {
		*w = AppDay{}
		return
	}
	var slots [24]appDaySlot
	for i := range slots {
		slots[mod(int64(i)+k, 24)] = w.slot(i)
	}
	w.setSlots(&slots)
	w.newest = int32(newest) // the same slots: the same total
}

// hourAt is the hour slot i holds.
func (w *AppDay) hourAt(i int) int64 {
	n := int64(w.newest)
	return n - int64(mod(n-int64(i), 24))
}

func (s *appDaySlot) counts() Counts {
	return Counts{Up: int64(s.up), Down: int64(s.down), Unavailable: int64(s.unavail),
		RTSum: float64(s.rtMicros()) / 1e6, RTN: int64(s.rtN)}
}

// slotOf is c as a slot holds it, saturated; a slot of no check is empty
// whatever else c says, so that an empty slot is all zero.
func slotOf(c Counts) appDaySlot {
	c16 := func(n int64) uint16 { return uint16(min(max(n, 0), math.MaxUint16)) }
	s := appDaySlot{up: c16(c.Up), down: c16(c.Down), unavail: c16(c.Unavailable)}
	if !s.empty() {
		s.rtN = c16(c.RTN)
		s.setRTMicros(statefile.SumMicros(c.RTSum))
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

// Encode encodes w as statefile.Encoder.Day does a decoded day.
// The slots are written from their integers: their sums are whole
// microseconds under 2^48, which Counts' seconds hold exactly, so the bytes
// are those of the Counts.
func (w *AppDay) Encode(e *statefile.Encoder) {
	var slots [24]appDaySlot
	n := 0
	for i := range w.hours {
		if slots[i] = w.slot(i); !slots[i].empty() {
			n++
		}
	}
	e.BeginDay(n)
	for i := range slots {
		if s := &slots[i]; !s.empty() {
			e.HourCounts(w.hourAt(i), statefile.HourCounts{Up: uint64(s.up), Down: uint64(s.down),
				Unavailable: uint64(s.unavail), RTN: uint64(s.rtN), RTMicros: s.rtMicros()})
		}
	}
}

// mod is the non-negative remainder, so that times before 1970 from a test
// clock cannot index out of range.
func mod(a, n int64) int {
	return int((a%n + n) % n)
}

// hoursOf is step in whole hours, to the nearest: the 24-hour windows
// count per clock hour and move by whole hours.
func hoursOf(step time.Duration) int64 { return int64(step.Round(time.Hour) / time.Hour) }
