package availmon

import (
	"math"
	"time"
)

// appDayWindow is a dayWindow for one app, in 480 bytes instead of 1,152:
// there is one per app, so 50,000 apps save 33 MB. An app is checked at
// most once a second (MinInterval), 3,600 times an hour, so an hour's counts
// fit 16 bits; they saturate at 65,535 should a program call Scrape more
// often than that. The response time sums keep their float64, in an array
// of their own so that the slots pack without padding.
type appDayWindow struct {
	slots [24]appDaySlot
	rtSum [24]float64 // seconds, over the rtN checks of the slot that measured one
}

type appDaySlot struct {
	hour                   int32 // unix hours; which hour the slot holds
	up, down, unavail, rtN uint16
}

func (w *appDayWindow) add(t time.Time, s Status, rt time.Duration) {
	h := t.Unix() / 3600
	i := mod(h, 24)
	slot := &w.slots[i]
	if int64(slot.hour) != h {
		*slot = appDaySlot{hour: int32(h)}
		w.rtSum[i] = 0
	}
	switch s {
	case StatusUp:
		slot.up = inc16(slot.up)
	case StatusDown:
		slot.down = inc16(slot.down)
	default:
		slot.unavail = inc16(slot.unavail)
		return
	}
	if slot.rtN < math.MaxUint16 {
		w.rtSum[i] += rt.Seconds()
		slot.rtN++
	}
}

// inc16 is n+1, saturating.
func inc16(n uint16) uint16 {
	if n == math.MaxUint16 {
		return n
	}
	return n + 1
}

func (w *appDayWindow) sum(now time.Time) counts {
	h := now.Unix() / 3600
	var c counts
	for i := range w.slots {
		if hr := int64(w.slots[i].hour); hr > h-24 && hr <= h {
			c.merge(w.counts(i))
		}
	}
	return c
}

// window is w as a dayWindow, to merge into or remove from the windows of
// locations and the system.
func (w *appDayWindow) window() *dayWindow {
	var out dayWindow
	for i := range w.slots {
		out[i].hour = int64(w.slots[i].hour)
		out[i].c = w.counts(i)
	}
	return &out
}

// set makes w hold what d holds (a window restored from a store), counts
// past 16 bits kept at the most 16 bits hold.
func (w *appDayWindow) set(d *dayWindow) {
	c16 := func(n int64) uint16 { return uint16(min(max(n, 0), math.MaxUint16)) }
	for i := range d {
		c := d[i].c
		w.slots[i] = appDaySlot{hour: int32(d[i].hour), up: c16(c.up), down: c16(c.down), unavail: c16(c.unavailable), rtN: c16(c.rtN)}
		w.rtSum[i] = c.rtSum
	}
}

// addHour adds c to hour's slot, as dayWindow.addHour does.
func (w *appDayWindow) addHour(hour int64, c counts) {
	d := w.window()
	d.addHour(hour, c)
	w.set(d)
}

func (w *appDayWindow) counts(i int) counts {
	s := &w.slots[i]
	return counts{up: int64(s.up), down: int64(s.down), unavailable: int64(s.unavail),
		rtSum: w.rtSum[i], rtN: int64(s.rtN)}
}
