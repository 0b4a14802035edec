package availmon

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// stateCmp compares decoded states: unexported fields, times by instant,
// response time sums to the microsecond encoding 4 keeps them to.
var stateCmp = cmp.Options{
	cmp.Exporter(func(reflect.Type) bool { return true }),
	cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
	cmpopts.EquateApprox(0, 1e-6),
	cmpopts.EquateEmpty(),
}

// A file of encoding 3 (testdata/state-encoding-3.bin, written by the
// availmon before encoding 4) is read whole, and written again as encoding
// 4 it reads back the same.
func TestStateEncoding3Read(t *testing.T) {
	old, err := os.ReadFile("testdata/state-encoding-3.bin")
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeState(old)
	if err != nil {
		t.Fatalf("an encoding-3 file: %v", err)
	}
	a := got.apps[0]
	wantErrs := []string{"", "HTTP 500", "HTTP 500", "timeout"}
	var errs []string
	for _, c := range a.history {
		errs = append(errs, c.err)
	}
	if len(got.apps) != 2 || a.name != "a" || !slicesEqual(errs, wantErrs) || a.history[3].at != t0.Add(3*time.Minute).UnixNano() ||
		a.history[0].rt != 25*time.Millisecond || a.history[3].status != StatusUnavailable ||
		a.state.err != "HTTP 500" || a.state.status() != StatusDown || got.apps[1].state.checked() ||
		len(got.minutes) != 2 || int64(got.minutes[1].minute) != t0.Unix()/60 || got.interval == nil || got.interval.d != 90*time.Second ||
		len(got.replay) != 1 || len(got.maint.windows) != 1 || got.maint.windows[0].ID != "api-3" || got.maint.nextID != 3 ||
		a.day.sum(t0.Add(time.Minute)).total() != 2 || got.sysDay.sum(t0.Add(time.Hour)).total() != 2 {
		t.Fatalf("the encoding-3 file read as %+v", got)
	}
	b := encodeState(got)
	if b[0] != stateEncoding {
		t.Errorf("written again as encoding %d, want %d", b[0], stateEncoding)
	}
	again, err := decodeState(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, again, stateCmp); diff != "" {
		t.Errorf("written again as encoding 4 (-3 +4):\n%s", diff)
	}
}

func slicesEqual(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00") && len(a) == len(b)
}

// failingHistory is n checks a minute apart, failing with a text that
// names a port changing every check, every third one up.
func failingHistory(n int) []checkEntry {
	var h []checkEntry
	for i := range n {
		c := checkEntry{at: t0.Add(time.Duration(i)*time.Minute).UnixMilli() * 1e6, status: StatusUnavailable,
			err: fmt.Sprintf(`Get "http://app.internal/health": dial tcp 10.0.3.7:%d->10.1.0.1:8080: i/o timeout`, 40000+i*37)}
		if i%3 == 0 {
			c = checkEntry{at: c.at, rt: time.Duration(i) * 1234 * time.Microsecond, status: StatusUp}
		}
		h = append(h, c)
	}
	return h
}

// Encoding 4 round-trips checks and their error texts: texts that change
// every check, repeat, are long (and share nothing), are not valid UTF-8,
// or are only the state's; and texts that change every check cost a few
// bytes each, not their length.
func TestStateEncoding4RoundTrip(t *testing.T) {
	long := strings.Repeat("é", maxErrorText/2) // maxErrorText bytes
	longer := long + "x"
	s := &savedState{savedAt: t0, locs: []savedLocation{{name: "l"}}, apps: []savedApp{
		{name: "failing", location: "l", history: failingHistory(100),
			state: savedAppState(StatusUnavailable, t0, 0, failingHistory(100)[98].err)},
		{name: "mixed", location: "l", history: []checkEntry{
			{at: t0.UnixNano(), status: StatusDown, rt: time.Second, err: "HTTP 500"},
			{at: t0.UnixNano() + 15e9, status: StatusDown, rt: 71 * time.Minute, err: long},
			{at: t0.UnixNano() + 30e9, status: StatusDown, err: long[:len(long)-1] + "y"},
			{at: t0.UnixNano() + 31e9, status: StatusDown, err: longer},
			{at: t0.UnixNano() + 29e9, status: StatusDown, err: longer + "z"}, // a clock that went back
			{at: t0.UnixNano() + 45e9, status: StatusUp, err: "\xff\xfe"},
			{at: t0.UnixNano() + 60e9, status: StatusUp, rt: 7 * time.Microsecond},
			{at: t0.UnixNano() + 75e9, status: StatusDown, err: "HTTP 500"},
		}, state: savedAppState(StatusDown, t0.Add(time.Minute), 3*time.Millisecond, "only the state's")},
		{name: "fresh", location: "l", state: unchecked()},
		{name: "before 1970", location: "l", history: []checkEntry{{at: -5e6, status: StatusUp}, {at: 0, status: StatusDown, err: "e"}},
			state: savedAppState(StatusDown, time.Unix(0, 0), 0, "e")},
	}}
	for h := range 24 {
		s.apps[0].day.add(t0.Add(time.Duration(h)*time.Hour), StatusUp, time.Duration(h)*time.Millisecond+333*time.Microsecond, true)
	}
	s.sysDay = s.apps[0].day
	b := encodeState(s)
	got, err := decodeState(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, got, stateCmp); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	one := &savedState{savedAt: t0, apps: s.apps[:1]}
	if n, texts := len(encodeState(one)), 66*len(failingHistory(100)[1].err); n > 1500 {
		t.Errorf("100 checks, 66 of them failing with texts changing every check (%d bytes of text): %d bytes", texts, n)
	}
}

// v4App is an encoding-4 state of one app named "a" in location "l", whose
// checks, state, error texts and day window body writes.
func v4App(body func(e *encoder)) []byte {
	var e encoder
	e.header(t0, nil)
	e.b[0] = 4   // no ledger section
	e.uvarint(0) // minutes
	e.uvarint(0) // system day window
	e.uvarint(0) // locations
	e.uvarint(1)
	e.str("a")
	e.str("l")
	body(&e)
	e.replay(nil)
	e.maintenance(&savedMaintenance{})
	return e.b
}

// v4Knobs are the parts of the app v4Bad writes: two checks, the first one
// failing with the first text; the app's state failing with the second;
// the second text shares p bytes and s bytes of the first.
type v4Knobs struct {
	checks, rt, status1, stateRef, texts, p, s, hours uint64
	dd                                                int64
	first, mid                                        string
}

func (k v4Knobs) encode() []byte {
	return v4App(func(e *encoder) {
		e.uvarint(k.checks)
		e.varint(k.dd)
		e.uvarint(k.rt)
		e.uvarint(k.status1)
		e.varint(-k.dd) // the same time again
		e.uvarint(0)
		e.uvarint(1) // up, no error
		e.b = append(e.b, 1)
		e.status(StatusDown)
		e.varint(t0.UnixNano())
		e.varint(0)
		e.uvarint(k.stateRef)
		e.uvarint(k.texts)
		e.uvarint(0)
		e.uvarint(0)
		e.str(k.first)
		e.uvarint(k.p)
		e.uvarint(k.s)
		e.str(k.mid)
		e.uvarint(k.hours)
	})
}

var goodKnobs = v4Knobs{checks: 2, dd: t0.UnixMilli(), rt: 1500, status1: 1<<2 | 2, stateRef: 2, texts: 2, p: 4, s: 2, first: "boom: 42", mid: "er "}

// Encoding 4 refuses what no encoder writes: an error text's number out of
// its table, absurd counts, a status code of none, times and response
// times out of range, texts sharing more bytes than the text before them
// holds, or sharing to grow past the longest text kept; and every
// truncation of a good state.
func TestStateEncoding4Bad(t *testing.T) {
	good, err := decodeState(goodKnobs.encode())
	if err != nil {
		t.Fatalf("the good state: %v", err)
	}
	if h := good.apps[0].history; len(h) != 2 || h[0].err != "boom: 42" || h[0].status != StatusDown || h[0].rt != 1500*time.Microsecond ||
		h[1].at != h[0].at || h[0].at != t0.UnixNano() || good.apps[0].state.err != "boomer 42" {
		t.Fatalf("the good state reads as %+v", good.apps[0])
	}
	long := strings.Repeat("a", maxErrorText)
	for name, change := range map[string]func(k *v4Knobs){
		"error text out of the table":       func(k *v4Knobs) { k.status1 = 3<<2 | 2 },
		"huge error text number":            func(k *v4Knobs) { k.status1 = math.MaxUint64 },
		"state's error text out of table":   func(k *v4Knobs) { k.stateRef = 3 },
		"status code 3":                     func(k *v4Knobs) { k.status1 = 1<<2 | 3 },
		"more texts than checks":            func(k *v4Knobs) { k.texts = 4 },
		"absurd number of texts":            func(k *v4Knobs) { k.texts = 1 << 40 },
		"absurd number of checks":           func(k *v4Knobs) { k.checks = 1 << 40 },
		"checks past the data":              func(k *v4Knobs) { k.checks = 30 },
		"time out of range":                 func(k *v4Knobs) { k.dd = maxCheckMillis + 1 },
		"time delta out of range":           func(k *v4Knobs) { k.dd = math.MinInt64 },
		"response time out of range":        func(k *v4Knobs) { k.rt = math.MaxUint32 + 1 },
		"prefix longer than the text":       func(k *v4Knobs) { k.p, k.s = 9, 0 },
		"prefix and suffix overlap":         func(k *v4Knobs) { k.p, k.s = 5, 4 },
		"huge suffix":                       func(k *v4Knobs) { k.p, k.s = 1, math.MaxUint64 },
		"shared text past the longest kept": func(k *v4Knobs) { k.first, k.p, k.s, k.mid = long, maxErrorText, 0, "b" },
		"25 hours in a day":                 func(k *v4Knobs) { k.hours = 25 },
	} {
		k := goodKnobs
		change(&k)
		if _, err := decodeState(k.encode()); !errors.Is(err, ErrBadState) {
			t.Errorf("%s: %v, want ErrBadState", name, err)
		}
	}
	k := goodKnobs
	k.first, k.p, k.s, k.mid = long, maxErrorText-1, 1, "" // as long as the longest kept: fine
	if _, err := decodeState(k.encode()); err != nil {
		t.Errorf("a shared text of maxErrorText bytes: %v", err)
	}
	full := encodeState(&savedState{savedAt: t0, apps: []savedApp{{name: "a", history: failingHistory(5), state: savedAppState("", time.Time{}, 0, "x")}}})
	for n := range len(full) {
		if _, err := decodeState(full[:n]); !errors.Is(err, ErrBadState) {
			t.Fatalf("the first %d of %d bytes: %v, want ErrBadState", n, len(full), err)
		}
	}
	if _, err := decodeState(bytes.Clone(full)); err != nil {
		t.Fatal(err)
	}
}

// shared finds the longest prefix and then the longest suffix, never
// overlapping, whatever the lengths.
func TestShared(t *testing.T) {
	for _, c := range []struct {
		a, b string
		p, s int
	}{
		{"", "", 0, 0},
		{"", "abc", 0, 0},
		{"abc", "abc", 3, 0},
		{"abcdefghijklmnopq", "abcdefghijklmnopq", 17, 0},
		{"abcdefghij:40000->x:8080 timeout", "abcdefghij:40037->x:8080 timeout", 14, 16},
		{"aaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 20, 0},
		{"xaaaaaaaaaaaaaaaaaaa", "yaaaaaaaaaaaaaaaaaaaaaaaaa", 0, 19},
		{"abcXdef", "abcYYYYYYYYYYYYYYYYYYdef", 3, 3},
	} {
		p, s := shared(c.a, c.b)
		if p != c.p || s != c.s {
			t.Errorf("shared(%q, %q) = %d, %d; want %d, %d", c.a, c.b, p, s, c.p, c.s)
		}
		if q, r := shared(c.b, c.a); q != p || r != s {
			t.Errorf("shared(%q, %q) = %d, %d unlike the other way round", c.b, c.a, q, r)
		}
	}
}

// Minute buckets round-trip at the ends of what they hold. A minute past
// them is refused, as any value out of range; a count past 32 bits (which
// a bucket no longer holds) is kept at the most it holds.
func TestStateMinuteRange(t *testing.T) {
	s := &savedState{savedAt: t0, minutes: []minuteBucket{
		{minute: math.MinInt32, up: math.MaxUint32, down: 1, lastUp: math.MaxInt32, seen: true},
		{minute: -1, down: 7, lastDown: 7, seen: true},
		{minute: math.MaxInt32, up: 2, lastU: 5, seen: true},
	}}
	got, err := decodeState(encodeState(s))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, got, stateCmp); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}

	// A file of one bucket, its minute and up count written as given.
	file := func(minute int64, up uint64) []byte {
		var e encoder
		e.header(t0, nil)
		e.uvarint(1)
		e.varint(minute)
		e.uvarint(up)
		e.uvarint(0)
		e.uvarint(0)
		e.uvarint(0)
		e.uvarint(0)
		rest := encodeState(&savedState{savedAt: t0})
		var h encoder
		h.header(t0, nil)
		return append(e.b, rest[len(h.b)+1:]...) // after the header and its count of no minutes
	}
	if got, err := decodeState(file(math.MaxInt32, 3)); err != nil || got.minutes[0].minute != math.MaxInt32 || got.minutes[0].up != 3 {
		t.Fatalf("a minute in range: %+v, %v", got, err)
	}
	for _, m := range []int64{math.MaxInt32 + 1, math.MinInt32 - 1, math.MaxInt64} {
		if _, err := decodeState(file(m, 3)); !errors.Is(err, ErrBadState) || !strings.Contains(err.Error(), "minute") {
			t.Errorf("minute %d: %v, want ErrBadState naming the minute", m, err)
		}
	}
	if got, err := decodeState(file(7, 1<<40)); err != nil || got.minutes[0].up != math.MaxUint32 {
		t.Errorf("an up count of 2^40: %+v, %v; want %d", got, err, uint32(math.MaxUint32))
	}
}
