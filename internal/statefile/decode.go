package statefile

import (
	"bytes"
	"math"
	"slices"
	"time"

	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/internal/bytecodec"
	"github.com/availmon/availmon/internal/ledger"
)

// Decode reads a state file of any encoding from 2 to Version. It trusts
// nothing: every count is checked against the bytes left before anything
// is allocated, and every value against its range, so damaged or hostile
// input is an error wrapping ErrCorrupt, never a panic, a huge allocation
// or a misread.
func Decode(b []byte) (*State, error) {
	d := decoder{Decoder: bytecodec.New(b, ErrCorrupt)}
	v := d.Uvarint()
	if d.Err() == nil && (v < oldest || v > Version) {
		d.Fail("encoding version %d, this availmon reads %d to %d", v, oldest, Version)
		return nil, d.Err()
	}
	d.v = v
	d.checksLeft = checksPerByte*uint64(len(b)) + freeChecks
	s := &State{SavedAt: time.Unix(0, d.Varint())}
	if iv := time.Duration(d.Varint()); iv != 0 {
		s.Interval = &Interval{D: iv, Text: d.Str()}
	}
	d.minutes(s)
	d.day(&s.System)
	s.Locations = make([]Location, d.Count(2))
	for i := range s.Locations {
		s.Locations[i].Name = d.Str()
		d.day(&s.Locations[i].Day)
	}
	s.Apps = make([]App, d.Count(4))
	for i := range s.Apps {
		d.app(&s.Apps[i])
	}
	if v >= 5 {
		d.ledgerSection(s)
	}
	s.Replay = make([]hmac.ReplayEntry, d.Count(33))
	for i := range s.Replay {
		copy(s.Replay[i].Signature[:], d.Bytes(32))
		s.Replay[i].Expires = time.Unix(0, d.Varint())
	}
	if v >= 3 {
		d.maintenance(&s.Maintenance)
	}
	if d.Err() == nil && d.Len() > 0 {
		d.Fail("%d bytes after the end", d.Len())
	}
	if d.Err() != nil {
		return nil, d.Err()
	}
	return s, nil
}

type decoder struct {
	bytecodec.Decoder
	v    uint64   // the encoding's version
	refs []uint64 // encoding 4: an app's checks' error references, reused
	// checksLeft is how many more checks the file may hold, and ref the
	// checks the next app's are relative to, next its buffer (encoding 6).
	checksLeft uint64
	ref, next  []fileCheck
	refDay     *Day // the day window read last
	// refTexts is the last table of error texts that had one (encoding 6).
	refTexts []string
	// texts holds one copy of each error text read: every app that failed
	// the same way (a backend down) saved the same text, and each would
	// otherwise hold its own copy for as long as its history keeps it.
	texts map[string]string
	buf   []byte // an error text being put together, reused
}

func (d *decoder) minutes(s *State) {
	s.Minutes = make([]Minute, d.Count(6))
	var prev int64 // encoding 4: each minute is relative to the one before
	for i := range s.Minutes {
		minute := d.Varint()
		if d.v >= 4 {
			minute += prev
			prev = minute
		}
		if d.Err() == nil && (minute < math.MinInt32 || minute > math.MaxInt32) {
			d.Fail("minute %d out of range", minute)
		}
		s.Minutes[i] = Minute{Minute: int32(minute), Up: d.count32(), Down: d.count32(),
			LastUp: d.int31(), LastDown: d.int31(), LastUnavailable: d.int31()}
	}
}

func (d *decoder) int63() int64 {
	v := d.Uvarint()
	if v > math.MaxInt64 {
		d.Fail("count %d out of range", v)
		return 0
	}
	return int64(v)
}

// count32 reads a count a minute keeps in 32 bits, saturating as a
// history's bucket does: the encoding holds up to 63 bits, so a file
// written with a wider bucket still reads.
func (d *decoder) count32() uint32 {
	return uint32(min(uint64(d.int63()), math.MaxUint32))
}

func (d *decoder) int31() int32 {
	v := d.Uvarint()
	if v > math.MaxInt32 {
		d.Fail("count %d out of range", v)
		return 0
	}
	return int32(v)
}

func (d *decoder) duration() time.Duration {
	v := d.Varint()
	if v < 0 {
		d.Fail("negative duration %d", v)
		return 0
	}
	return time.Duration(v)
}

func (d *decoder) status() Status { return d.statusOf(uint64(d.Byte())) }

// statusOf is the status of a status code.
func (d *decoder) statusOf(code uint64) Status {
	if code > uint64(Down) {
		d.Fail("status code %d", code)
		return Unavailable
	}
	return Status(code)
}

// day reads a day window of the decoder's encoding.
func (d *decoder) day(w *Day) {
	switch {
	case d.v < 4:
		d.dayV3(w)
	case d.v < 6:
		d.dayV4(w)
	default:
		d.dayV6(w)
	}
}

// putHour puts an hour's counts in its slot of w, once.
func (d *decoder) putHour(w *Day, hour int64, c Counts) {
	slot := &w[int((hour%24+24)%24)]
	if slot.C.total() > 0 {
		d.Fail("hour %d given twice", hour)
		return
	}
	slot.Hour, slot.C = hour, c
}

// app reads an app of the decoder's encoding.
func (d *decoder) app(a *App) {
	switch {
	case d.v < 4:
		d.appV3(a)
	case d.v < 6:
		d.appV4(a)
	default:
		d.appV6(a)
	}
}

// dayV4 reads a day window of encoding 4.
func (d *decoder) dayV4(w *Day) {
	n := d.Count(6)
	if n > len(w) {
		d.Fail("%d hours in a day window", n)
		return
	}
	var hour int64
	for range n {
		hour += d.Varint()
		c := Counts{Up: d.int63(), Down: d.int63(), Unavailable: d.int63(), RTN: d.int63()}
		c.RTSum = float64(d.Uvarint()) / 1e6
		d.putHour(w, hour, c)
	}
}

// appV4 reads an app of encoding 4.
func (d *decoder) appV4(a *App) {
	a.Name, a.Location = d.Str(), d.Str()
	a.Checks = make([]Check, d.Count(3))
	d.refs = slices.Grow(d.refs[:0], len(a.Checks))[:len(a.Checks)]
	var ms, delta int64
	for i := range a.Checks {
		dd := d.Varint()
		if dd < -maxCheckDelta2 || dd > maxCheckDelta2 {
			d.Fail("app %q: check time out of range", a.Name)
			return
		}
		delta += dd
		ms += delta
		if ms < MinCheckMillis || ms > MaxCheckMillis { // which bounds delta to ±maxCheckDelta too
			d.Fail("app %q: check time out of range", a.Name)
			return
		}
		us := d.Uvarint()
		if us > math.MaxUint32 {
			d.Fail("app %q: response time %dµs out of range", a.Name, us)
			return
		}
		sr := d.Uvarint()
		a.Checks[i] = Check{At: ms * int64(time.Millisecond), RT: time.Duration(us) * time.Microsecond, Status: d.statusOf(sr & 3)}
		d.refs[i] = sr >> 2
	}
	d.appTail(a)
}

// appTail reads what follows an app's checks in encodings 4 to 6: its last
// state, its error texts, which it gives the checks (by their refs in
// d.refs) and the state, and its day window.
func (d *decoder) appTail(a *App) {
	stateRef := d.lastV4(a)
	texts := d.errTexts(len(a.Checks) + 1)
	if d.Err() != nil {
		return
	}
	for i := range a.Checks {
		a.Checks[i].Err = d.text(texts, d.refs[i])
	}
	a.Last.Err = d.text(texts, stateRef)
	d.day(&a.Day)
}

// appV6 reads an app of encoding 6.
func (d *decoder) appV6(a *App) {
	a.Name, a.Location = d.Str(), d.Str()
	d.checksV6(a)
	if d.Err() != nil {
		return
	}
	for i := range d.refs[:len(a.Checks)] {
		d.refs[i] >>= 4
	}
	d.appTail(a)
}

// lastV4 reads an app's last state and returns the ref of its error text.
func (d *decoder) lastV4(a *App) uint64 {
	switch flag := d.Byte(); flag {
	case 0:
		a.Last = Last{}
		return 0
	case 1:
		a.Last = Last{Checked: true, Status: d.status(), At: d.Varint(), RT: d.duration()}
		return d.Uvarint()
	default:
		d.Fail("app %q: checked flag %d", a.Name, flag)
		return 0
	}
}

// errTexts reads an app's table of error texts, of at most most texts.
func (d *decoder) errTexts(most int) []string {
	minBytes := 3
	if d.v >= 6 {
		minBytes = 1 // a text of the reference table
	}
	n := d.Count(minBytes)
	if n > most {
		d.Fail("%d error texts for %d checks", n, most-1)
		return nil
	}
	texts := make([]string, n)
	prev := ""
	for i := range texts {
		p := d.Uvarint()
		if d.v >= 6 {
			if p&1 != 0 {
				if p != 1 || i >= len(d.refTexts) {
					d.Fail("error text %d: the reference's of %d texts, tag %d", i, len(d.refTexts), p)
					return nil
				}
				texts[i], prev = d.refTexts[i], d.refTexts[i]
				continue
			}
			p >>= 1
		}
		s := d.Uvarint()
		mid := d.Bytes(d.Count(1))
		switch {
		case d.Err() != nil:
			return nil
		case p > uint64(len(prev)) || s > uint64(len(prev))-p:
			d.Fail("error text shares %d+%d bytes of %d", p, s, len(prev))
			return nil
		case p+s > 0 && p+s+uint64(len(mid)) > maxErrorText:
			d.Fail("an error text of %d bytes shares bytes", p+s+uint64(len(mid)))
			return nil
		}
		d.buf = append(append(append(d.buf[:0], prev[:p]...), mid...), prev[uint64(len(prev))-s:]...)
		texts[i] = d.intern(d.buf)
		prev = texts[i]
	}
	if n > 0 {
		d.refTexts = texts
	}
	return texts
}

// intern returns b as a string, the one copy of it the decoder keeps.
func (d *decoder) intern(b []byte) string {
	if t, ok := d.texts[string(b)]; ok {
		return t
	}
	if d.texts == nil {
		d.texts = make(map[string]string)
	}
	t := string(b)
	d.texts[t] = t
	return t
}

// text is the error text ref refers to.
func (d *decoder) text(texts []string, ref uint64) string {
	switch {
	case ref == 0:
		return ""
	case ref > uint64(len(texts)):
		d.Fail("error text %d of %d", ref, len(texts))
		return ""
	}
	return texts[ref-1]
}

// emptyLedger is the section of a ledger with no record.
var emptyLedger = ledger.New(ledger.Options{}).AppendBinary(nil)

// ledgerSection reads the ledger section and checks it whole: a damaged
// ledger makes the state unreadable, as any other damaged part does.
func (d *decoder) ledgerSection(s *State) {
	if d.Len() < 8 {
		d.Fail("truncated ledger")
		return
	}
	n := d.Uint64()
	if n > uint64(d.Len()) {
		d.Fail("a ledger of %d bytes in %d", n, d.Len())
		return
	}
	raw := d.Bytes(int(n))
	saved, err := ledger.Decode(raw)
	if err != nil {
		d.Fail("%v", err)
		return
	}
	if !bytes.Equal(raw, emptyLedger) {
		// Not a copy: a ledger is most of a large state, and the caller
		// that wants the raw bytes past b's life copies them.
		s.Ledger, s.Records = raw[:len(raw):len(raw)], saved
	}
}

// A window takes at least 11 bytes: six empty strings, no labels, two
// zero times and a zero duration.
const minWindowBytes = 11

func (d *decoder) maintenance(s *Maintenance) {
	next := d.Uvarint()
	if next > math.MaxInt32 {
		d.Fail("maintenance window id %d out of range", next)
		return
	}
	s.NextID = int(next)
	n := d.Count(minWindowBytes)
	if n > MaxWindows {
		d.Fail("%d maintenance windows, at most %d come from the API", n, MaxWindows)
		return
	}
	s.Windows = make([]Window, n)
	for i := range s.Windows {
		w := &s.Windows[i]
		w.ID, w.App, w.Location, w.Service = d.Str(), d.Str(), d.Str(), d.Str()
		if nl := d.Count(2); nl > 0 {
			w.Labels = make(map[string]string, nl)
			for range nl {
				k := d.Str()
				w.Labels[k] = d.Str()
			}
		}
		w.From, w.To = d.time(), d.time()
		w.Cron, w.Duration, w.TimeZone, w.Comment = d.Str(), d.duration(), d.Str(), d.Str()
		if d.Err() != nil {
			return
		}
	}
}

func (d *decoder) time() time.Time {
	switch flag := d.Byte(); flag {
	case 0:
		return time.Time{}
	case 1:
		return time.Unix(0, d.Varint()).UTC()
	default:
		d.Fail("time flag %d", flag)
		return time.Time{}
	}
}
