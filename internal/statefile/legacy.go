package statefile

import "math"

// Encodings 2 and 3 wrote every check in full: its time and response time
// in nanoseconds, a status byte and its error text. They are still read
// (a file saved by an older availmon restores), never written.

// dayV3 reads a day window of encodings 2 and 3: every hour absolute, the
// response time sum as float64 bits.
func (d *decoder) dayV3(w *Day) {
	n := d.Count(13)
	if n > len(w) {
		d.Fail("%d hours in a day window", n)
		return
	}
	for range n {
		hour := d.Varint()
		c := Counts{Up: d.int63(), Down: d.int63(), Unavailable: d.int63(), RTN: d.int63()}
		c.RTSum = math.Float64frombits(d.Uint64())
		if math.IsNaN(c.RTSum) || math.IsInf(c.RTSum, 0) || c.RTSum < 0 {
			d.Fail("response time sum %v", c.RTSum)
			return
		}
		d.putHour(w, hour, c)
	}
}

// appV3 reads an app of encodings 2 and 3: its last state, then its checks.
func (d *decoder) appV3(a *App) {
	a.Name, a.Location = d.Str(), d.Str()
	switch flag := d.Byte(); flag {
	case 0:
		a.Last = Last{}
	case 1:
		a.Last = Last{Checked: true, Status: d.status(), At: d.Varint(), RT: d.duration(), Err: d.Str()}
	default:
		d.Fail("app %q: checked flag %d", a.Name, flag)
		return
	}
	a.Checks = make([]Check, d.Count(4))
	var at int64
	for i := range a.Checks {
		at += d.Varint()
		a.Checks[i] = Check{At: at, RT: d.duration(), Status: d.status(), Err: d.Str()}
	}
	d.dayV3(&a.Day)
}
