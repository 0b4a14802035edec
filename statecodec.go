package availmon

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/availmon/availmon/hmac"
)

// savedState is what a Store keeps, as decoded, everything keyed by name.
// A running monitor encodes its live state without building one
// (encodeLive, persist.go).
type savedState struct {
	savedAt  time.Time
	interval *intervalSetting // nil: never set at run time
	minutes  []minuteBucket   // seen buckets only
	sysDay   dayWindow
	locs     []savedLocation
	apps     []savedApp
	replay   []hmac.ReplayEntry
	maint    savedMaintenance // since encoding 3
	// The ledger's section (since encoding 5; nil: an empty ledger),
	// checked whole when read.
	ledger []byte
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
// Encoding 3 added the maintenance windows of the API at the end; encoding
// 4 writes checks as compactly as the history holds them, each app's error
// texts once (below); encoding 5 the ledger of availability over
// time after the apps (ledger.go).
const stateEncoding = 5

func readsEncoding(v uint64) bool { return v >= 2 && v <= stateEncoding }

// encoder appends the encoding to b. What it keeps besides is what a part
// is encoded relative to (the previous minute, hour or check) and an app's
// table of error texts, reused from one app to the next.
type encoder struct {
	b []byte

	prevMinute, prevHour  int64
	prevMillis, prevDelta int64
	texts                 []string // the app's error texts, in the order of first use
	slotRef               []uint64 // live: history error number - 1 -> 1 + index in texts
}

func (e *encoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) status(s Status)  { e.b = append(e.b, fileStatusCode(s)) }

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

// minute is one minute bucket, its minute relative to the bucket before it
// (the buckets come in slot order: one minute apart but where the ring
// wraps).
func (e *encoder) minute(b *minuteBucket) {
	e.varint(int64(b.minute) - e.prevMinute)
	e.prevMinute = int64(b.minute)
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
	e.beginDay(n)
	for i := range w {
		if c := w[i].c; c.total() > 0 {
			e.hour(w[i].hour, c)
		}
	}
}

func (e *encoder) replay(rs []hmac.ReplayEntry) {
	e.uvarint(uint64(len(rs)))
	for _, r := range rs {
		e.b = append(e.b, r.Signature[:]...)
		e.varint(r.Expires.UnixNano())
	}
}

// fileStatusCode is s's code in the state file, whose codes were fixed
// before the statusCode a running monitor keeps.
func fileStatusCode(s Status) byte {
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
	d.v = v
	s := &savedState{savedAt: time.Unix(0, d.varint())}
	if iv := time.Duration(d.varint()); iv != 0 {
		// Only an interval set at run time is saved, so one read back
		// was set at run time too, and is saved again until set anew.
		s.interval = &intervalSetting{d: iv, text: d.str(), runtime: true}
		if d.err == nil && checkInterval(iv) != nil {
			d.fail("interval %s out of range", iv)
		}
	}
	s.minutes = make([]minuteBucket, d.count(6))
	var prev int64 // encoding 4: each minute is relative to the one before
	for i := range s.minutes {
		minute := d.varint()
		if v >= 4 {
			minute += prev
			prev = minute
		}
		if d.err == nil && !fitsMinute(minute) {
			d.fail("minute %d out of range", minute)
		}
		s.minutes[i] = minuteBucket{minute: int32(minute), up: d.count32(), down: d.count32(),
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
	if v >= 5 {
		d.ledgerSection(s)
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
	b    []byte
	err  error
	v    uint64   // the encoding's version
	refs []uint64 // encoding 4: an app's checks' error references, reused
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

// count32 reads a count a bucket keeps in 32 bits, saturating as the
// bucket does: a file may hold more from before the buckets shrank.
func (d *decoder) count32() uint32 {
	return uint32(min(uint64(d.int63()), math.MaxUint32))
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

func (d *decoder) status() Status { return d.statusOf(uint64(d.bytes(1)[0])) }

// day reads a day window of the decoder's encoding.
func (d *decoder) day(w *dayWindow) {
	if d.v < 4 {
		d.dayV3(w)
		return
	}
	d.dayV4(w)
}

// putHour puts an hour's counts in its slot of w, once.
func (d *decoder) putHour(w *dayWindow, hour int64, c counts) {
	slot := &w[mod(hour, int64(len(w)))]
	if slot.c.total() > 0 {
		d.fail("hour %d given twice", hour)
		return
	}
	slot.hour, slot.c = hour, c
}

// app reads an app of the decoder's encoding.
func (d *decoder) app(a *savedApp) {
	if d.v < 4 {
		d.appV3(a)
		return
	}
	d.appV4(a)
}

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

// Encoding 4 writes an app's checks as compactly as its history holds them
// (history.go): a check's time to the millisecond, its response time to the
// microsecond, and its error text as a number in a table of the app's
// distinct texts, written once after its checks. A check with no error then
// takes 5 bytes, and an app failing every check with the same text writes
// the text once instead of a hundred times.
//
// An app is: its name and location; the number of its checks and each
// check as
//
//	varint   its time in unix milliseconds, less the time of the check
//	         before and less the gap before that one (0 for checks at a
//	         steady interval, one byte)
//	uvarint  its response time in microseconds
//	uvarint  ref<<2 | status, ref being 0 for no error text, else 1 + the
//	         text's index in the table
//
// then its last state (as before, with its error text as a ref); then the
// table: its length and each text as the bytes it shares with the text
// before it (a prefix and a suffix length) and the bytes between. Texts
// that change every check (a timeout naming the connection's port) then
// cost a few bytes each. Only texts of at most maxErrorText bytes share
// (every text the monitor keeps), so no text decodes longer than that
// from fewer bytes of its own: a file decodes to a bounded multiple of its
// size.

// The bounds of a check's time in milliseconds (years 1691 to 2248, which
// a history clamps times to), of the difference between two and of the
// difference of two differences.
const (
	maxCheckMillis = 1<<43 - 1
	minCheckMillis = -maxCheckMillis - 1
	maxCheckDelta  = maxCheckMillis - minCheckMillis
	maxCheckDelta2 = 2 * maxCheckDelta
)

// checkMillis is the time of a check in unix milliseconds, as its history
// keeps it.
func checkMillis(at int64) int64 {
	return min(max(time.Unix(0, at).UnixMilli(), minCheckMillis), maxCheckMillis)
}

// checkMicros is the response time of a check in microseconds, rounded as
// the API shows it and saturated as its history keeps it.
func checkMicros(rt time.Duration) uint32 {
	us := rt / time.Microsecond
	if rt%time.Microsecond >= time.Microsecond/2 {
		us++ // half up; adding before dividing would wrap near MaxInt64
	}
	return uint32(min(max(us, 0), math.MaxUint32))
}

// beginChecks starts an app's checks: their number, and an empty table of
// error texts for a history that numbers errNumbers texts (0 for a copy).
func (e *encoder) beginChecks(n, errNumbers int) {
	e.uvarint(uint64(n))
	e.prevMillis, e.prevDelta = 0, 0
	e.texts = e.texts[:0]
	e.slotRef = slices.Grow(e.slotRef[:0], errNumbers)[:errNumbers]
	clear(e.slotRef)
}

// check is one check: ms in [minCheckMillis, maxCheckMillis], ref 0 or
// 1 + the index of its text in e.texts.
func (e *encoder) check(ms int64, rtMicros uint32, s Status, ref uint64) {
	delta := ms - e.prevMillis
	e.varint(delta - e.prevDelta)
	e.prevMillis, e.prevDelta = ms, delta
	e.uvarint(uint64(rtMicros))
	e.uvarint(ref<<2 | uint64(fileStatusCode(s)))
}

// ref is the ref of a live history's error number n (0: none), adding its
// text to the table when first used.
func (e *encoder) ref(n uint16, errs []errText) uint64 {
	if n == 0 {
		return 0
	}
	r := &e.slotRef[n-1]
	if *r == 0 {
		e.texts = append(e.texts, errs[n-1].text)
		*r = uint64(len(e.texts))
	}
	return *r
}

// appState is an app's last state, after its checks: its error text is a
// ref into the same table, most often to the text of its last check.
func (e *encoder) appState(st *appState) {
	if !st.checked() {
		e.b = append(e.b, 0)
		return
	}
	e.b = append(e.b, 1)
	e.status(st.status())
	e.varint(st.lastCheck)
	e.varint(int64(st.rt))
	var ref uint64
	if st.err != "" {
		i := len(e.texts) - 1 // from the last: the last check's text most often
		for i >= 0 && e.texts[i] != st.err {
			i--
		}
		if i < 0 {
			e.texts = append(e.texts, st.err)
			i = len(e.texts) - 1
		}
		ref = uint64(i) + 1
	}
	e.uvarint(ref)
}

// errTexts writes the app's table of error texts.
func (e *encoder) errTexts() {
	e.uvarint(uint64(len(e.texts)))
	prev := ""
	for _, t := range e.texts {
		p, s := 0, 0
		if len(t) <= maxErrorText {
			p, s = shared(prev, t)
		}
		e.uvarint(uint64(p))
		e.uvarint(uint64(s))
		e.str(t[p : len(t)-s])
		prev = t
	}
}

// shared returns the length of the longest common prefix of a and b, and
// of the longest common suffix of what follows it in both.
func shared(a, b string) (prefix, suffix int) {
	n := min(len(a), len(b))
	for prefix+8 <= n && a[prefix:prefix+8] == b[prefix:prefix+8] { // 8 bytes a step: a save shares millions
		prefix += 8
	}
	for prefix < n && a[prefix] == b[prefix] {
		prefix++
	}
	for m := n - prefix; suffix+8 <= m && a[len(a)-suffix-8:len(a)-suffix] == b[len(b)-suffix-8:len(b)-suffix]; {
		suffix += 8
	}
	for suffix < n-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	return prefix, suffix
}

// beginDay starts a day window of n hours.
func (e *encoder) beginDay(n int) {
	e.uvarint(uint64(n))
	e.prevHour = 0
}

// hour is one hour of a day window that counted some check: the hour
// relative to the one before (the slots come in order: one apart but where
// the window wraps), the counts, and the sum of response times in
// microseconds, the unit checks measure them in.
func (e *encoder) hour(hour int64, c counts) {
	e.varint(hour - e.prevHour)
	e.prevHour = hour
	e.uvarint(uint64(c.up))
	e.uvarint(uint64(c.down))
	e.uvarint(uint64(c.unavailable))
	e.uvarint(uint64(c.rtN))
	e.uvarint(sumMicros(c.rtSum))
}

// sumMicros is a sum of response times in seconds as whole microseconds.
func sumMicros(seconds float64) uint64 {
	us := math.Round(seconds * 1e6)
	switch {
	case !(us > 0): // NaN included
		return 0
	case us >= 1<<63:
		return 1 << 63
	}
	return uint64(us)
}

// dayV4 reads a day window of encoding 4.
func (d *decoder) dayV4(w *dayWindow) {
	n := d.count(6)
	if n > len(w) {
		d.fail("%d hours in a day window", n)
		return
	}
	var hour int64
	for range n {
		hour += d.varint()
		c := counts{up: d.int63(), down: d.int63(), unavailable: d.int63(), rtN: d.int63()}
		c.rtSum = float64(d.uvarint()) / 1e6
		d.putHour(w, hour, c)
	}
}

// appV4 reads an app of encoding 4.
func (d *decoder) appV4(a *savedApp) {
	a.name, a.location = d.str(), d.str()
	a.history = make([]checkEntry, d.count(3))
	d.refs = slices.Grow(d.refs[:0], len(a.history))[:len(a.history)]
	var ms, delta int64
	for i := range a.history {
		dd := d.varint()
		if dd < -maxCheckDelta2 || dd > maxCheckDelta2 {
			d.fail("app %q: check time out of range", a.name)
			return
		}
		delta += dd
		ms += delta
		if ms < minCheckMillis || ms > maxCheckMillis { // which bounds delta to ±maxCheckDelta too

			d.fail("app %q: check time out of range", a.name)
			return
		}
		us := d.uvarint()
		if us > math.MaxUint32 {
			d.fail("app %q: response time %dµs out of range", a.name, us)
			return
		}
		sr := d.uvarint()
		a.history[i] = checkEntry{at: ms * int64(time.Millisecond), rt: time.Duration(us) * time.Microsecond, status: d.statusOf(sr & 3)}
		d.refs[i] = sr >> 2
	}
	stateRef := d.appStateV4(a)
	texts := d.errTexts(len(a.history) + 1)
	if d.err != nil {
		return
	}
	for i := range a.history {
		a.history[i].err = d.text(texts, d.refs[i])
	}
	a.state.err = d.text(texts, stateRef)
	d.day(&a.day)
}

// appStateV4 reads an app's last state and returns the ref of its error
// text.
func (d *decoder) appStateV4(a *savedApp) uint64 {
	switch flag := d.bytes(1)[0]; flag {
	case 0:
		a.state = unchecked()
		return 0
	case 1:
		a.state = checkedState(d.status(), d.varint(), d.duration())
		return d.uvarint()
	default:
		d.fail("app %q: checked flag %d", a.name, flag)
		return 0
	}
}

// errTexts reads an app's table of error texts, of at most most texts.
func (d *decoder) errTexts(most int) []string {
	n := d.count(3)
	if n > most {
		d.fail("%d error texts for %d checks", n, most-1)
		return nil
	}
	texts := make([]string, n)
	prev := ""
	for i := range texts {
		p, s := d.uvarint(), d.uvarint()
		mid := d.bytes(d.count(1))
		switch {
		case d.err != nil:
			return nil
		case p > uint64(len(prev)) || s > uint64(len(prev))-p:
			d.fail("error text shares %d+%d bytes of %d", p, s, len(prev))
			return nil
		case p+s > 0 && p+s+uint64(len(mid)) > maxErrorText:
			d.fail("an error text of %d bytes shares bytes", p+s+uint64(len(mid)))
			return nil
		}
		texts[i] = prev[:p] + string(mid) + prev[uint64(len(prev))-s:]
		prev = texts[i]
	}
	return texts
}

// text is the error text ref refers to.
func (d *decoder) text(texts []string, ref uint64) string {
	switch {
	case ref == 0:
		return ""
	case ref > uint64(len(texts)):
		d.fail("error text %d of %d", ref, len(texts))
		return ""
	}
	return texts[ref-1]
}

// statusOf is the status of a status code.
func (d *decoder) statusOf(code uint64) Status {
	switch code {
	case 0:
		return StatusUnavailable
	case 1:
		return StatusUp
	case 2:
		return StatusDown
	}
	d.fail("status code %d", code)
	return StatusUnavailable
}
