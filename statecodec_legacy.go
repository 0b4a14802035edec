package availmon

import (
	"encoding/binary"
	"math"
)

// Encodings 2 and 3 wrote every check in full: its time and response time
// in nanoseconds, a status byte and its error text. They are still read
// (a file saved by an older availmon restores), never written.

// dayV3 reads a day window of encodings 2 and 3: every hour absolute, the
// response time sum as float64 bits.
func (d *decoder) dayV3(w *dayWindow) {
	n := d.count(13)
	if n > len(w) {
		d.fail("%d hours in a day window", n)
		return
	}
	for range n {
		hour := d.varint()
		c := counts{up: d.int63(), down: d.int63(), unavailable: d.int63(), rtN: d.int63()}
		c.rtSum = math.Float64frombits(binary.LittleEndian.Uint64(d.bytes(8)))
		if math.IsNaN(c.rtSum) || math.IsInf(c.rtSum, 0) || c.rtSum < 0 {
			d.fail("response time sum %v", c.rtSum)
			return
		}
		d.putHour(w, hour, c)
	}
}

// appV3 reads an app of encodings 2 and 3: its last state, then its checks.
func (d *decoder) appV3(a *savedApp) {
	a.name, a.location = d.str(), d.str()
	switch flag := d.bytes(1)[0]; flag {
	case 0:
		a.state = unchecked()
	case 1:
		a.state = checkedState(d.status(), d.varint(), d.duration())
		a.state.err = d.str()
	default:
		d.fail("app %q: checked flag %d", a.name, flag)
		return
	}
	a.history = make([]checkEntry, d.count(4))
	var at int64
	for i := range a.history {
		at += d.varint()
		a.history[i] = checkEntry{at: at, rt: d.duration(), status: d.status(), err: d.str()}
	}
	d.dayV3(&a.day)
}
