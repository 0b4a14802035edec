package availmon

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/availmon/availmon/hmac"
)

// savedState is what a Store keeps, everything keyed by name. It is built
// from a copy taken between cycles (copyState) and encoded outside any lock.
type savedState struct {
	savedAt  time.Time
	interval *intervalSetting // nil: never set at run time
	minutes  []minuteBucket   // seen buckets only
	sysDay   dayWindow
	locs     []savedLocation
	apps     []savedApp
	replay   []hmac.ReplayEntry
	maint    savedMaintenance // since encoding 3
}

type savedLocation struct {
	name string
	day  dayWindow
}

type savedApp struct {
	name, location string
	state          appState
	history        []checkEntry // oldest first
	day            dayWindow
}

// stateEncoding is the version of the encoding below. A decoder reads it
// and the versions before it that it lists in readsEncoding, and refuses
// any other: a file of a newer availmon is set aside, never misread.
// Encoding 3 added the maintenance windows of the API at the end.
const stateEncoding = 3

func readsEncoding(v uint64) bool { return v == stateEncoding || v == 2 }

// encodeState writes s compactly: varints, check times as deltas. A
// running monitor encodes its live state the same way without taking a
// copy first (encodeLive, statesave.go); the encoder's parts below are
// shared so that the two cannot drift apart.
func encodeState(s *savedState) []byte {
	var e encoder
	e.header(s.savedAt, s.interval)
	e.uvarint(uint64(len(s.minutes)))
	for i := range s.minutes {
		e.minute(&s.minutes[i])
	}
	e.day(&s.sysDay)
	e.uvarint(uint64(len(s.locs)))
	for i := range s.locs {
		e.str(s.locs[i].name)
		e.day(&s.locs[i].day)
	}
	e.uvarint(uint64(len(s.apps)))
	for i := range s.apps {
		e.app(&s.apps[i])
	}
	e.replay(s.replay)
	e.maintenance(&s.maint)
	return e.b
}

type encoder struct{ b []byte }

func (e *encoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) status(s Status)  { e.b = append(e.b, statusCode(s)) }

// header is the encoding's version, the time of the save and the interval
// set at run time (nil: none).
func (e *encoder) header(savedAt time.Time, iv *intervalSetting) {
	e.uvarint(stateEncoding)
	e.varint(savedAt.UnixNano())
	if iv != nil {
		e.varint(int64(iv.d))
		e.str(iv.text)
	} else {
		e.varint(0)
	}
}

func (e *encoder) minute(b *minuteBucket) {
	e.varint(b.minute)
	e.uvarint(uint64(b.up))
	e.uvarint(uint64(b.down))
	e.uvarint(uint64(b.lastUp))
	e.uvarint(uint64(b.lastDown))
	e.uvarint(uint64(b.lastU))
}

func (e *encoder) day(w *dayWindow) {
	n := 0
	for i := range w {
		if w[i].c.total() > 0 {
			n++
		}
	}
	e.uvarint(uint64(n))
	for i := range w {
		if c := w[i].c; c.total() > 0 {
			e.hour(w[i].hour, c)
		}
	}
}

// hour is one hour of a day window that counted some check.
func (e *encoder) hour(hour int64, c counts) {
	e.varint(hour)
	e.uvarint(uint64(c.up))
	e.uvarint(uint64(c.down))
	e.uvarint(uint64(c.unavailable))
	e.uvarint(uint64(c.rtN))
	e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(c.rtSum))
}

func (e *encoder) app(a *savedApp) {
	e.appState(a.name, a.location, &a.state)
	e.uvarint(uint64(len(a.history)))
	var prev int64
	for i := range a.history {
		e.check(&prev, &a.history[i])
	}
	e.day(&a.day)
}

// appState is an app's names and its last state, what comes before its
// checks.
func (e *encoder) appState(name, location string, st *appState) {
	e.str(name)
	e.str(location)
	if st.checked {
		e.b = append(e.b, 1)
		e.status(st.status)
		e.varint(st.lastCheck.UnixNano())
		e.varint(int64(st.rt))
		e.str(st.err)
	} else {
		e.b = append(e.b, 0)
	}
}

// check is one entry of an app's history; prev is the time of the one
// before it (0 before the first), which it moves on.
func (e *encoder) check(prev *int64, c *checkEntry) {
	e.varint(c.at - *prev)
	*prev = c.at
	e.varint(int64(c.rt))
	e.status(c.status)
	e.str(c.err)
}

func (e *encoder) replay(rs []hmac.ReplayEntry) {
	e.uvarint(uint64(len(rs)))
	for _, r := range rs {
		e.b = append(e.b, r.Signature[:]...)
		e.varint(r.Expires.UnixNano())
	}
}

func statusCode(s Status) byte {
	switch s {
	case StatusUp:
		return 1
	case StatusDown:
		return 2
	default:
		return 0
	}
}

// decodeState reads what encodeState wrote. It trusts nothing: every count
// is checked against the bytes left before anything is allocated, and every
// value against its range, so damaged or hostile input is an error wrapping
// ErrBadState, never a panic, a huge allocation or a misread.
func decodeState(b []byte) (*savedState, error) {
	d := decoder{b: b}
	v := d.uvarint()
	if d.err == nil && !readsEncoding(v) {
		return nil, fmt.Errorf("%w: encoding version %d, this availmon reads 2 to %d", ErrBadState, v, stateEncoding)
	}
	s := &savedState{savedAt: time.Unix(0, d.varint())}
	if iv := time.Duration(d.varint()); iv != 0 {
		s.interval = &intervalSetting{d: iv, text: d.str()}
		if d.err == nil && checkInterval(iv) != nil {
			d.fail("interval %s out of range", iv)
		}
	}
	s.minutes = make([]minuteBucket, d.count(6))
	for i := range s.minutes {
		s.minutes[i] = minuteBucket{minute: d.varint(), up: d.int63(), down: d.int63(),
			lastUp: d.int31(), lastDown: d.int31(), lastU: d.int31(), seen: true}
	}
	d.day(&s.sysDay)
	s.locs = make([]savedLocation, d.count(2))
	for i := range s.locs {
		s.locs[i].name = d.str()
		d.day(&s.locs[i].day)
	}
	s.apps = make([]savedApp, d.count(4))
	for i := range s.apps {
		d.app(&s.apps[i])
	}
	s.replay = make([]hmac.ReplayEntry, d.count(33))
	for i := range s.replay {
		copy(s.replay[i].Signature[:], d.bytes(32))
		s.replay[i].Expires = time.Unix(0, d.varint())
	}
	if v >= 3 {
		d.maintenance(&s.maint)
	}
	if d.err == nil && len(d.b) > 0 {
		d.fail("%d bytes after the end", len(d.b))
	}
	if d.err != nil {
		return nil, d.err
	}
	return s, nil
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrBadState, fmt.Sprintf(format, args...))
	}
	d.b = nil
}

var errShort = errors.New("truncated")

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("%v varint", errShort)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("%v varint", errShort)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int63() int64 {
	v := d.uvarint()
	if v > math.MaxInt64 {
		d.fail("count %d out of range", v)
		return 0
	}
	return int64(v)
}

func (d *decoder) int31() int32 {
	v := d.uvarint()
	if v > math.MaxInt32 {
		d.fail("count %d out of range", v)
		return 0
	}
	return int32(v)
}

func (d *decoder) duration() time.Duration {
	v := d.varint()
	if v < 0 {
		d.fail("negative duration %d", v)
		return 0
	}
	return time.Duration(v)
}

// count reads a number of items that take at least minSize bytes each, and
// refuses it when the bytes left cannot hold them.
func (d *decoder) count(minSize int) int {
	v := d.uvarint()
	if v > uint64(len(d.b)/minSize) {
		d.fail("%d items cannot fit in %d bytes", v, len(d.b))
		return 0
	}
	return int(v)
}

func (d *decoder) bytes(n int) []byte {
	if n > len(d.b) {
		d.fail("%v: want %d bytes, have %d", errShort, n, len(d.b))
		return make([]byte, n)
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) str() string { return string(d.bytes(d.count(1))) }

func (d *decoder) status() Status {
	switch b := d.bytes(1)[0]; b {
	case 0:
		return StatusUnavailable
	case 1:
		return StatusUp
	case 2:
		return StatusDown
	default:
		d.fail("status code %d", b)
		return StatusUnavailable
	}
}

func (d *decoder) day(w *dayWindow) {
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
		slot := &w[mod(hour, int64(len(w)))]
		if slot.c.total() > 0 {
			d.fail("hour %d given twice", hour)
			return
		}
		slot.hour, slot.c = hour, c
	}
}

func (d *decoder) app(a *savedApp) {
	a.name, a.location = d.str(), d.str()
	switch flag := d.bytes(1)[0]; flag {
	case 0:
		a.state = appState{status: StatusUnavailable}
	case 1:
		a.state = appState{checked: true, status: d.status(), lastCheck: time.Unix(0, d.varint()),
			rt: d.duration(), err: d.str()}
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
	d.day(&a.day)
}
