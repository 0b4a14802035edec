package statefile

import (
	"math"
	"slices"
	"time"
)

// Encoding 4 writes an app's checks as compactly as a history holds them:
// a check's time to the millisecond, its response time to the microsecond,
// and its error text as a number in a table of the app's distinct texts,
// written once after its checks. A check with no error then takes 5 bytes,
// and an app failing every check with the same text writes the text once
// instead of a hundred times.
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
// then its last state (with its error text as a ref); then the table: its
// length and each text as the bytes it shares with the text before it (a
// prefix and a suffix length) and the bytes between. Texts that change
// every check (a timeout naming the connection's port) then cost a few
// bytes each. Only texts of at most maxErrorText bytes share (every text
// the monitor keeps), so no text decodes longer than that from fewer bytes
// of its own: a file decodes to a bounded multiple of its size.

// The bounds of a check's time in milliseconds (years 1691 to 2248, which
// a history clamps times to), of the difference between two and of the
// difference of two differences.
const (
	MaxCheckMillis = 1<<43 - 1
	MinCheckMillis = -MaxCheckMillis - 1
	maxCheckDelta  = MaxCheckMillis - MinCheckMillis
	maxCheckDelta2 = 2 * maxCheckDelta
)

// CheckMillis is the time of a check in unix milliseconds, as a history
// keeps it.
func CheckMillis(at int64) int64 {
	return min(max(time.Unix(0, at).UnixMilli(), MinCheckMillis), MaxCheckMillis)
}

// CheckMicros is the response time of a check in microseconds, rounded as
// the API shows it and saturated as a history keeps it.
func CheckMicros(rt time.Duration) uint32 {
	us := rt / time.Microsecond
	if rt%time.Microsecond >= time.Microsecond/2 {
		us++ // half up; adding before dividing would wrap near MaxInt64
	}
	return uint32(min(max(us, 0), math.MaxUint32))
}

// BeginChecks starts an app's n checks, and an empty table of error texts
// for a history that numbers errNumbers texts (see Ref).
func (e *Encoder) BeginChecks(n, errNumbers int) {
	e.checks = slices.Grow(e.checks[:0], n)
	e.texts = e.texts[:0]
	e.slotRef = slices.Grow(e.slotRef[:0], errNumbers)[:errNumbers]
	clear(e.slotRef)
}

// Check is one check: ms in [MinCheckMillis, MaxCheckMillis], ref 0 or a
// ref Ref returned. The app's checks are written by its Last, all known.
func (e *Encoder) Check(ms int64, rtMicros uint32, s Status, ref uint64) {
	e.checks = append(e.checks, fileCheck{ms: ms, us: rtMicros, word: ref<<4 | uint64(s)})
}

// Ref is the ref of a history's error number n in [1, errNumbers], whose
// text is text, adding the text to the table when first used.
func (e *Encoder) Ref(n int, text string) uint64 {
	r := &e.slotRef[n-1]
	if *r == 0 {
		e.texts = append(e.texts, text)
		*r = uint64(len(e.texts))
	}
	return *r
}

// Last is an app's last state, after its checks: its error text is a ref
// into the same table, most often to the text of its last check.
func (e *Encoder) Last(st *Last) {
	e.writeChecks()
	if !st.Checked {
		e.b = append(e.b, 0)
		return
	}
	e.b = append(e.b, 1, byte(st.Status))
	e.varint(st.At)
	e.varint(int64(st.RT))
	var ref uint64
	if st.Err != "" {
		i := len(e.texts) - 1 // from the last: the last check's text most often
		for i >= 0 && e.texts[i] != st.Err {
			i--
		}
		if i < 0 {
			e.texts = append(e.texts, st.Err)
			i = len(e.texts) - 1
		}
		ref = uint64(i) + 1
	}
	e.uvarint(ref)
}

// ErrTexts writes the app's table of error texts.
func (e *Encoder) ErrTexts() {
	e.uvarint(uint64(len(e.texts)))
	prev := ""
	for i, t := range e.texts {
		if i < len(e.refTexts) && e.refTexts[i] == t {
			e.uvarint(1) // the reference table's text at i (sharedchecks.go)
			prev = t
			continue
		}
		p, s := 0, 0
		if len(t) <= maxErrorText {
			p, s = shared(prev, t)
		}
		e.uvarint(uint64(p) << 1)
		e.uvarint(uint64(s))
		e.str(t[p : len(t)-s])
		prev = t
	}
	if len(e.texts) > 0 {
		e.refTexts = append(e.refTexts[:0], e.texts...)
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
