package statefile

import (
	"math"
	"slices"
	"time"
)

// Encoding 6 writes an app's checks relative to the app written before it.
// The apps one query answered are saved side by side, as they were
// planned, and their checks have the same times and response times (the
// query's round trip): encoding 4 wrote them again for every app, 5 to 6
// bytes a check, most of a state at 100,000 apps. Encoding 6 writes, for a
// check whose time and response time are those of the reference's check
// as far from its newest, only its status and error text; and it writes
// the checks' statuses and error texts as runs, since they seldom change
// from one check to the next. The reference is the previous app's checks,
// but where one measured no response time (an app the query found
// unavailable) and has the time of the reference's check before: that
// check keeps its response time for the apps after. An app's checks are
//
//	uvarint  the number of checks
//	uvarint  the number of runs, then each run as
//	           uvarint  ref<<4 | kind<<2 | status (ref as in encoding 4;
//	                    kind 0: the check's time and response time
//	                    follow, 1: both are the reference's, 2: its time
//	                    is the reference's and it measured none)
//	           uvarint  the number of checks in the run, at least 1
//	then each check of kind 0, oldest first, as
//	varint   its time in unix milliseconds, less the time predicted from
//	         the two checks before it (the check before plus the gap
//	         before that one; the first check's gap is 0)
//	uvarint  its response time in microseconds
//
// Its last state follows as in encoding 4, then its table of error texts:
// the apps one query answered failed alike, and encoding 5 wrote the same
// texts again in every app's table. In encoding 6 a text of the table is
//
//	uvarint  1: the text at the same index of the reference table, the
//	         last table written that had a text; else p<<1, then as in
//	         encoding 4 the suffix shared and the bytes between
//
// and its day window follows (sharedday.go).
//
// Sharing lets a few bytes stand for many checks; so that a file still
// decodes to a bounded multiple of its size, a file holds at most
// checksPerByte checks a byte of it, besides freeChecks: an encoder that
// would write more writes the app without sharing, which always fits.

// The kinds of a check in encoding 6.
const (
	ownCheck    = 0
	sharedCheck = 1
	sharedTime  = 2 // and no response time
)

// checksPerByte and freeChecks bound the checks a file holds: at most
// checksPerByte times its length, plus freeChecks. A state at the default
// history size holds about one check a byte.
const (
	checksPerByte = 8
	freeChecks    = 1 << 16
)

// fileCheck is a check as an Encoder holds it until it writes its app, and
// a check of the reference an encoder or decoder keeps.
type fileCheck struct {
	ms   int64
	us   uint32
	kind uint64
	word uint64 // ref<<4 | status
}

// writeChecks writes the app's checks held since BeginChecks, sharing what
// the reference has unless that would pass the file's bound, and makes
// them the reference.
func (e *Encoder) writeChecks() {
	at := len(e.b)
	e.checksOf(true)
	n := int64(len(e.checks))
	if e.checksWritten+n > checksPerByte*(e.written+int64(len(e.b)-e.base))+freeChecks {
		e.b = e.b[:at]
		e.checksOf(false)
	}
	e.checksWritten += n
	keepRTs(e.checks, e.prevChecks)
	e.prevChecks, e.checks = e.checks, e.prevChecks[:0]
}

// keepRTs gives the checks of cs that measured no response time, at the
// time of ref's check as far from its newest, that check's: cs becomes
// the reference after ref.
func keepRTs(cs, ref []fileCheck) {
	off := len(ref) - len(cs)
	for i := max(0, -off); i < len(cs); i++ {
		if c, r := &cs[i], &ref[i+off]; c.us == 0 && c.ms == r.ms {
			c.us = r.us
		}
	}
}

// kindOf is the kind of check c against the reference's check r.
func kindOf(c, r *fileCheck) uint64 {
	switch {
	case c.ms != r.ms:
		return ownCheck
	case c.us == r.us:
		return sharedCheck
	case c.us == 0:
		return sharedTime
	}
	return ownCheck
}

// checksOf writes the app's checks, those the reference has shared when
// share is set.
func (e *Encoder) checksOf(share bool) {
	off := len(e.prevChecks) - len(e.checks)
	runs := 0
	for i := range e.checks {
		c := &e.checks[i]
		c.kind = ownCheck
		if j := i + off; share && j >= 0 {
			c.kind = kindOf(c, &e.prevChecks[j])
		}
		if i == 0 || c.runWord() != e.checks[i-1].runWord() {
			runs++
		}
	}
	e.uvarint(uint64(len(e.checks)))
	e.uvarint(uint64(runs))
	for i := 0; i < len(e.checks); {
		w := e.checks[i].runWord()
		k := i + 1
		for k < len(e.checks) && e.checks[k].runWord() == w {
			k++
		}
		e.uvarint(w)
		e.uvarint(uint64(k - i))
		i = k
	}
	var prevMs, gap int64
	for i := range e.checks {
		c := &e.checks[i]
		if c.kind == ownCheck {
			e.varint(c.ms - prevMs - gap)
			e.uvarint(uint64(c.us))
		}
		if i > 0 {
			gap = c.ms - prevMs
		}
		prevMs = c.ms
	}
}

// runWord is the check's word in a run.
func (c *fileCheck) runWord() uint64 { return c.word | c.kind<<2 }

// checksV6 reads an app's checks of encoding 6 into a.Checks, their run
// words into d.refs, and makes them the reference.
func (d *decoder) checksV6(a *App) {
	n := d.Uvarint()
	if n > uint64(len(d.ref))+uint64(d.Len()/2) || n > d.checksLeft {
		d.Fail("app %q: %d checks", a.Name, n)
		return
	}
	d.checksLeft -= n
	a.Checks = make([]Check, n)
	d.refs = slices.Grow(d.refs[:0], len(a.Checks))[:len(a.Checks)]
	if !d.runsV6(a) {
		return
	}
	cs := slices.Grow(d.next[:0], len(a.Checks))[:len(a.Checks)]
	off := len(d.ref) - len(cs)
	var ms, gap int64
	for i := range cs {
		c := &cs[i]
		if kind := d.refs[i] >> 2 & 3; kind != ownCheck {
			if i+off < 0 {
				d.Fail("app %q: check %d shares a check the app before does not have", a.Name, i)
				return
			}
			r := &d.ref[i+off]
			c.ms, c.us = r.ms, r.us
			if kind == sharedTime {
				c.us = 0
			}
		} else if !d.ownCheck(a, c, ms+gap) {
			return
		}
		if i > 0 {
			gap = c.ms - ms
		}
		ms = c.ms
		a.Checks[i].At, a.Checks[i].RT = c.ms*int64(time.Millisecond), time.Duration(c.us)*time.Microsecond
	}
	keepRTs(cs, d.ref)
	d.ref, d.next = cs, d.ref
}

// ownCheck reads a check's own time, relative to the time predicted, and
// response time.
func (d *decoder) ownCheck(a *App, c *fileCheck, predicted int64) bool {
	dd := d.Varint()
	if dd < -maxCheckDelta2 || dd > maxCheckDelta2 {
		d.Fail("app %q: check time out of range", a.Name)
		return false
	}
	c.ms = predicted + dd
	us := d.Uvarint()
	if c.ms < MinCheckMillis || c.ms > MaxCheckMillis || us > math.MaxUint32 {
		d.Fail("app %q: check time or response time out of range", a.Name)
		return false
	}
	c.us = uint32(us)
	return true
}

// runsV6 reads the runs of an app's checks: their statuses, and their
// words into d.refs.
func (d *decoder) runsV6(a *App) bool {
	runs := d.Count(2)
	if runs > len(a.Checks) {
		d.Fail("app %q: %d runs of %d checks", a.Name, runs, len(a.Checks))
		return false
	}
	i := 0
	for range runs {
		w, k := d.Uvarint(), d.Uvarint()
		if d.Err() != nil || k == 0 || k > uint64(len(a.Checks)-i) || w>>2&3 > sharedTime {
			d.Fail("app %q: a run of %d checks, word %d", a.Name, k, w)
			return false
		}
		st := d.statusOf(w & 3)
		for range k {
			a.Checks[i].Status, d.refs[i] = st, w
			i++
		}
	}
	if i != len(a.Checks) && d.Err() == nil {
		d.Fail("app %q: runs of %d checks for %d", a.Name, i, len(a.Checks))
	}
	return d.Err() == nil
}
