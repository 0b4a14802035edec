package availmon

import (
	"math"
	"time"
)

// appDayWindow is a dayWindow for one app, in 768 bytes instead of 1,152:
// there is one per app, so 50,000 apps save 19 MB. An app is checked at
// most once a second (MinInterval), so an hour's counts fit 32 bits.
type appDayWindow [24]struct {
	rtSum                  float64 // seconds, over the rtN checks that measured one
	hour                   int32   // unix hours; which hour the slot holds
	up, down, unavail, rtN uint32
}

func (w *appDayWindow) add(t time.Time, s Status, rt time.Duration) {
	h := t.Unix() / 3600
	slot := &w[mod(h, 24)]
	if int64(slot.hour) != h {
		slot.rtSum, slot.up, slot.down, slot.unavail, slot.rtN = 0, 0, 0, 0, 0
		slot.hour = int32(h)
	}
	switch s {
	case StatusUp:
		slot.up++
	case StatusDown:
		slot.down++
	default:
		slot.unavail++
		return
	}
	slot.rtSum += rt.Seconds()
	slot.rtN++
}

func (w *appDayWindow) sum(now time.Time) counts {
	h := now.Unix() / 3600
	var c counts
	for i := range w {
		if hr := int64(w[i].hour); hr > h-24 && hr <= h {
			c.merge(w.counts(i))
		}
	}
	return c
}

// window is w as a dayWindow, to merge into or remove from the windows of
// locations and the system.
func (w *appDayWindow) window() *dayWindow {
	var out dayWindow
	for i := range w {
		out[i].hour = int64(w[i].hour)
		out[i].c = w.counts(i)
	}
	return &out
}

// set makes w hold what d holds (a window restored from a store), counts
// past 32 bits kept at the most 32 bits hold.
func (w *appDayWindow) set(d *dayWindow) {
	c32 := func(n int64) uint32 { return uint32(min(max(n, 0), math.MaxUint32)) }
	for i := range d {
		c := d[i].c
		w[i].hour = int32(d[i].hour)
		w[i].up, w[i].down, w[i].unavail, w[i].rtN = c32(c.up), c32(c.down), c32(c.unavailable), c32(c.rtN)
		w[i].rtSum = c.rtSum
	}
}

// addHour adds c to hour's slot, as dayWindow.addHour does.
func (w *appDayWindow) addHour(hour int64, c counts) {
	d := w.window()
	d.addHour(hour, c)
	w.set(d)
}

func (w *appDayWindow) counts(i int) counts {
	return counts{up: int64(w[i].up), down: int64(w[i].down), unavailable: int64(w[i].unavail),
		rtSum: w[i].rtSum, rtN: int64(w[i].rtN)}
}
