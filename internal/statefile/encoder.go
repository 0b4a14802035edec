package statefile

import (
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/internal/errtext"
)

// Encoder writes a state file part by part, in the order of a State's
// fields: Header, Minutes and each Minute, the system Day, Locations and
// for each a Location and its Day, Apps and for each an App, its checks
// (BeginChecks, Check), its Last, its ErrTexts and its Day, then Ledger,
// Replay and Maintenance. What it keeps besides the bytes is what a part
// is encoded relative to (the previous minute, hour or check) and an app's
// table of error texts, reused from one app to the next.
//
// An Encoder of NewEncoder appends the whole encoding to its buffer; one of
// NewStreamEncoder writes it to its writer as it goes, holding no more
// than a part of it (an app, a ledger record) at a time.
type Encoder struct {
	b []byte

	w       io.Writer // nil: the whole encoding stays in b
	base    int       // the length of NewEncoder's buf, before the encoding
	written int64     // bytes given to w
	err     error     // w's first error: later writes are dropped

	prevMinute            int64
	prevMillis, prevDelta int64
	texts                 []string // the app's error texts, in the order of first use
	slotRef               []uint64 // error number - 1 -> 1 + index in texts

	// checks are the app's checks, held until its Last writes them;
	// prevChecks the app's before, whose times and response times they
	// may share (checks.go). checksWritten counts the checks of the apps
	// written, against the bound on sharing.
	checks, prevChecks []fileCheck
	checksWritten      int64
	refTexts           []string // the last app's table of error texts that had one

	// dayHours are the hours of the day window being given, dayWant how
	// many it has; refDay the window written before, by slot (sharedday.go).
	dayHours []fileHour
	dayWant  int
	refDay   [24]fileHour
}

// NewEncoder returns an Encoder that appends to buf.
func NewEncoder(buf []byte) *Encoder { return &Encoder{b: buf, base: len(buf)} }

// NewStreamEncoder returns an Encoder that writes the encoding to w as it
// goes, holding parts of it in buf (reused from the last encoding, whose
// Bytes it is after Flush; nil for a new one); Flush writes what is left.
// After a write to w failed, the encoding goes on but writes nothing more,
// so that a caller encoding from a cut of live state still takes all of it
// (Flush returns the error).
func NewStreamEncoder(w io.Writer, buf []byte) *Encoder {
	if cap(buf) < 2*spillBytes {
		buf = make([]byte, 0, 2*spillBytes)
	}
	return &Encoder{b: buf[:0], w: w}
}

// spillBytes is how much a stream encoder holds before writing it out.
const spillBytes = 64 << 10

// Bytes is the encoding so far; for a stream encoder, what it has not
// written yet.
func (e *Encoder) Bytes() []byte { return e.b }

// Flush writes what a stream encoder holds and returns the bytes written
// in all and the writer's first error. For an Encoder of NewEncoder it
// does nothing and returns the length of the encoding.
func (e *Encoder) Flush() (int64, error) {
	if e.w == nil {
		return int64(len(e.b)), nil
	}
	e.write(e.b)
	e.b = e.b[:0]
	return e.written, e.err
}

// spill writes out what a stream encoder holds once it is spillBytes.
func (e *Encoder) spill() {
	if e.w != nil && len(e.b) >= spillBytes {
		e.write(e.b)
		e.b = e.b[:0]
	}
}

// write gives p to the writer, unless a write failed before.
func (e *Encoder) write(p []byte) {
	if e.err != nil || len(p) == 0 {
		return
	}
	n, err := e.w.Write(p)
	e.written += int64(n)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	e.err = err
}

func (e *Encoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *Encoder) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *Encoder) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }

// Header is the encoding's version, the time of the save and the interval
// set at run time (nil: none).
func (e *Encoder) Header(savedAt time.Time, iv *Interval) {
	e.uvarint(Version)
	e.varint(savedAt.UnixNano())
	if iv != nil {
		e.varint(int64(iv.D))
		e.str(iv.Text)
	} else {
		e.varint(0)
	}
}

// Minutes starts n minutes.
func (e *Encoder) Minutes(n int) { e.uvarint(uint64(n)) }

// Minute is one minute, relative to the one before it (they come in slot
// order: one minute apart but where the ring wraps).
func (e *Encoder) Minute(m *Minute) {
	e.spill()
	e.varint(int64(m.Minute) - e.prevMinute)
	e.prevMinute = int64(m.Minute)
	e.uvarint(uint64(m.Up))
	e.uvarint(uint64(m.Down))
	e.uvarint(uint64(m.LastUp))
	e.uvarint(uint64(m.LastDown))
	e.uvarint(uint64(m.LastUnavailable))
}

// Day writes the hours of d that counted a check.
func (e *Encoder) Day(d *Day) {
	n := 0
	for i := range d {
		if d[i].C.total() > 0 {
			n++
		}
	}
	e.BeginDay(n)
	for i := range d {
		if c := d[i].C; c.total() > 0 {
			e.Hour(d[i].Hour, c)
		}
	}
}

// BeginDay starts a day window of n hours, each then written by Hour or
// HourCounts; the window is written once all n are given.
func (e *Encoder) BeginDay(n int) {
	e.dayWant = n
	e.dayHours = e.dayHours[:0]
	if n == 0 {
		e.writeDay()
	}
}

// Hour is one hour of a day window that counted some check: the hour
// relative to the one before (the slots come in order: one apart but where
// the window wraps), the counts, and the sum of response times in
// microseconds, the unit checks measure them in.
func (e *Encoder) Hour(hour int64, c Counts) {
	e.HourCounts(hour, HourCounts{Up: uint64(c.Up), Down: uint64(c.Down), Unavailable: uint64(c.Unavailable),
		RTN: uint64(c.RTN), RTMicros: SumMicros(c.RTSum)})
}

// HourCounts are an hour's counts as the state file writes them: integers,
// the sum of response times in whole microseconds.
type HourCounts struct{ Up, Down, Unavailable, RTN, RTMicros uint64 }

// HourCounts is Hour of counts already in the file's integers: a window
// that keeps them so (every app's) writes them without converting its sum
// to seconds and back.
func (e *Encoder) HourCounts(hour int64, c HourCounts) {
	e.dayHours = append(e.dayHours, fileHour{hour: hour, c: c, set: true})
	if len(e.dayHours) == e.dayWant {
		e.writeDay()
	}
}

// SumMicros is a sum of response times in seconds as whole microseconds.
func SumMicros(seconds float64) uint64 {
	us := math.Round(seconds * 1e6)
	switch {
	case !(us > 0): // NaN included
		return 0
	case us >= 1<<63:
		return 1 << 63
	}
	return uint64(us)
}

// Locations starts n locations.
func (e *Encoder) Locations(n int) { e.uvarint(uint64(n)) }

// Location starts a location, whose Day follows.
func (e *Encoder) Location(name string) {
	e.spill()
	e.str(name)
}

// Apps starts n apps.
func (e *Encoder) Apps(n int) {
	e.uvarint(uint64(n))
	e.prevChecks, e.refTexts = e.prevChecks[:0], e.refTexts[:0]
}

// App starts an app, whose checks, Last, ErrTexts and Day follow.
func (e *Encoder) App(name, location string) {
	e.spill()
	e.str(name)
	e.str(location)
}

// Replay writes the replay cache.
func (e *Encoder) Replay(rs []hmac.ReplayEntry) {
	e.uvarint(uint64(len(rs)))
	for _, r := range rs {
		e.spill()
		e.b = append(e.b, r.Signature[:]...)
		e.varint(r.Expires.UnixNano())
	}
}

// Ledger writes the ledger section: a little-endian uint64 length, then
// what appendLedger appends (internal/ledger's AppendBinary). The
// fixed-width length lets a ledger be encoded straight into the buffer,
// the length written after it.
func (e *Encoder) Ledger(appendLedger func([]byte) []byte) {
	at := len(e.b)
	e.b = append(e.b, 0, 0, 0, 0, 0, 0, 0, 0)
	e.b = appendLedger(e.b)
	binary.LittleEndian.PutUint64(e.b[at:], uint64(len(e.b)-at-8))
	e.spill()
}

// LedgerPieces writes the ledger section of a ledger that each hands to
// emit piece by piece (internal/ledger's Book.EachBinary), as Ledger
// writes it. A stream encoder calls each twice, to measure the section
// and then to write it, so that it never holds the section whole; each
// must emit the same bytes both times (a Book does not change), or the
// encoding fails (Flush's error).
func (e *Encoder) LedgerPieces(each func(emit func([]byte) error) error) {
	if e.w == nil {
		e.Ledger(func(b []byte) []byte {
			_ = each(func(p []byte) error { b = append(b, p...); return nil })
			return b
		})
		return
	}
	var n uint64
	_ = each(func(p []byte) error { n += uint64(len(p)); return nil })
	e.b = binary.LittleEndian.AppendUint64(e.b, n)
	var got uint64
	_ = each(func(p []byte) error {
		got += uint64(len(p))
		if len(e.b)+len(p) > spillBytes {
			e.write(e.b)
			e.b = e.b[:0]
		}
		if len(p) >= spillBytes {
			e.write(p) // a large record goes out without a copy
		} else {
			e.b = append(e.b, p...)
		}
		return nil
	})
	if got != n && e.err == nil {
		e.err = fmt.Errorf("statefile: the ledger gave %d bytes, then %d", n, got)
	}
	e.spill()
}

// Maintenance writes the API's maintenance windows.
func (e *Encoder) Maintenance(s *Maintenance) {
	e.spill()
	e.uvarint(uint64(s.NextID))
	e.uvarint(uint64(len(s.Windows)))
	for i := range s.Windows {
		w := &s.Windows[i]
		e.str(w.ID)
		e.str(w.App)
		e.str(w.Location)
		e.str(w.Service)
		e.uvarint(uint64(len(w.Labels)))
		for _, k := range slices.Sorted(maps.Keys(w.Labels)) {
			e.str(k)
			e.str(w.Labels[k])
		}
		e.time(w.From)
		e.time(w.To)
		e.str(w.Cron)
		e.varint(int64(w.Duration))
		e.str(w.TimeZone)
		e.str(w.Comment)
	}
}

// time writes t as a flag (0: the zero time) and its Unix nanoseconds.
func (e *Encoder) time(t time.Time) {
	if t.IsZero() {
		e.b = append(e.b, 0)
		return
	}
	e.b = append(e.b, 1)
	e.varint(t.UnixNano())
}

// Encode returns the encoding of s, as a monitor writes its live state.
func Encode(s *State) []byte {
	e := NewEncoder(nil)
	e.state(s)
	return e.b
}

// state encodes s whole.
func (e *Encoder) state(s *State) {
	raw := s.Ledger
	if raw == nil {
		raw = emptyLedger
	}
	e.stateWith(s, func(emit func([]byte) error) error { return emit(raw) })
}

// stateWith encodes s with the ledger section each gives (LedgerPieces).
func (e *Encoder) stateWith(s *State, each func(emit func([]byte) error) error) {
	e.Header(s.SavedAt, s.Interval)
	e.Minutes(len(s.Minutes))
	for i := range s.Minutes {
		e.Minute(&s.Minutes[i])
	}
	e.Day(&s.System)
	e.Locations(len(s.Locations))
	for i := range s.Locations {
		e.Location(s.Locations[i].Name)
		e.Day(&s.Locations[i].Day)
	}
	e.Apps(len(s.Apps))
	for i := range s.Apps {
		e.app(&s.Apps[i])
	}
	e.LedgerPieces(each)
	e.Replay(s.Replay)
	e.Maintenance(&s.Maintenance)
}

// app writes a decoded app as a live history writes its own.
func (e *Encoder) app(a *App) {
	e.App(a.Name, a.Location)
	e.BeginChecks(len(a.Checks), 0)
	textRef := make(map[string]uint64)
	for i := range a.Checks {
		c := &a.Checks[i]
		var ref uint64
		if c.Err != "" {
			if ref = textRef[c.Err]; ref == 0 {
				e.texts = append(e.texts, c.Err)
				ref = uint64(len(e.texts))
				textRef[c.Err] = ref
			}
		}
		e.Check(CheckMillis(c.At), CheckMicros(c.RT), c.Status, ref)
	}
	e.Last(&a.Last)
	e.ErrTexts()
	e.Day(&a.Day)
}

// maxErrorText bounds the texts that share bytes with the one before.
const maxErrorText = errtext.Max
