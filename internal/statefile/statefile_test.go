package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/timeline"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// stateCmp compares decoded states: times by instant, response time sums
// to the microsecond encoding 4 keeps them to.
var stateCmp = cmp.Options{
	cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
	cmpopts.EquateApprox(0, 1e-6),
	cmpopts.EquateEmpty(),
}

// addCheck counts a check in the hour of t, as a monitor's day window does.
func addCheck(d *Day, t time.Time, s Status, rt time.Duration) {
	h := t.Unix() / 3600
	slot := &d[int((h%24+24)%24)]
	if slot.Hour != h {
		*slot = Hour{Hour: h}
	}
	switch s {
	case Up:
		slot.C.Up++
	case Down:
		slot.C.Down++
	default:
		slot.C.Unavailable++
		return
	}
	slot.C.RTSum += rt.Seconds()
	slot.C.RTN++
}

func daySum(d *Day) int64 {
	var n int64
	for i := range d {
		n += d[i].C.total()
	}
	return n
}

func last(s Status, at time.Time, rt time.Duration, err string) Last {
	return Last{Checked: true, Status: s, At: at.UnixNano(), RT: rt, Err: err}
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// reencode checks that got, written as the current encoding, reads back
// the same.
func reencode(t *testing.T, got *State) {
	t.Helper()
	b := Encode(got)
	if b[0] != Version {
		t.Errorf("written again as encoding %d, want %d", b[0], Version)
	}
	again, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, again, stateCmp); diff != "" {
		t.Errorf("written again (-old +now):\n%s", diff)
	}
}

// A file of encoding 3 (testdata/state-encoding-3.bin, written by the
// availmon before encoding 4) is read whole, and written again as the
// current encoding it reads back the same.
func TestStateEncoding3Read(t *testing.T) {
	got, err := Decode(readFile(t, "state-encoding-3.bin"))
	if err != nil {
		t.Fatalf("an encoding-3 file: %v", err)
	}
	a := got.Apps[0]
	var errs []string
	for _, c := range a.Checks {
		errs = append(errs, c.Err)
	}
	if len(got.Apps) != 2 || a.Name != "a" || !slices.Equal(errs, []string{"", "HTTP 500", "HTTP 500", "timeout"}) ||
		a.Checks[3].At != t0.Add(3*time.Minute).UnixNano() || a.Checks[0].RT != 25*time.Millisecond || a.Checks[3].Status != Unavailable ||
		a.Last.Err != "HTTP 500" || a.Last.Status != Down || got.Apps[1].Last.Checked ||
		len(got.Minutes) != 2 || int64(got.Minutes[1].Minute) != t0.Unix()/60 || got.Interval == nil || got.Interval.D != 90*time.Second ||
		len(got.Replay) != 1 || len(got.Maintenance.Windows) != 1 || got.Maintenance.Windows[0].ID != "api-3" || got.Maintenance.NextID != 3 ||
		daySum(&a.Day) != 2 || daySum(&got.System) != 2 {
		t.Fatalf("the encoding-3 file read as %+v", got)
	}
	reencode(t, got)
}

// A file of encoding 2 (written by the availmon before maintenance windows
// were kept) is still read, without windows; the encoding after the
// current one is refused.
func TestStateEncoding2Read(t *testing.T) {
	got, err := Decode(readFile(t, "state-encoding-2.bin"))
	if err != nil {
		t.Fatalf("an encoding-2 file: %v", err)
	}
	if len(got.Apps) != 2 || got.Apps[0].Name != "a" || len(got.Apps[0].Checks) != 2 || got.Apps[0].Checks[1].Err != "x" ||
		len(got.Replay) != 1 || got.Interval == nil || got.Interval.D != 90*time.Second || len(got.Maintenance.Windows) != 0 {
		t.Errorf("the encoding-2 file read as %+v", got)
	}
	reencode(t, got)
	future := append([]byte{Version + 1}, Encode(got)[1:]...)
	if _, err := Decode(future); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("encoding version %d", Version+1)) {
		t.Errorf("encoding %d: %v", Version+1, err)
	}
}

// A state of encoding 4 (written by the availmon before the ledger was
// saved) is read, with an empty ledger.
func TestStateEncoding4Read(t *testing.T) {
	got, err := Decode(readFile(t, "state-encoding-4.bin"))
	if err != nil {
		t.Fatalf("an encoding-4 file: %v", err)
	}
	if len(got.Apps) != 3 || got.Ledger != nil {
		t.Fatalf("the encoding-4 file read as %+v", got)
	}
	reencode(t, got)
}

// The encoding round-trips every field it keeps.
func TestStateEncodingRoundTrip(t *testing.T) {
	s := &State{
		SavedAt:   t0,
		Interval:  &Interval{D: 90 * time.Second, Text: "90s"},
		Minutes:   []Minute{{Minute: 100, Up: 5, Down: 1, LastUp: 2, LastDown: 1, LastUnavailable: 3}},
		Locations: []Location{{Name: "Tel Aviv"}},
		Apps: []App{
			{Name: "a", Location: "Tel Aviv", Last: last(Down, t0, time.Second, "HTTP 500"),
				Checks: []Check{{At: t0.UnixNano(), RT: time.Millisecond, Status: Up}, {At: t0.UnixNano() + 1e9, Status: Down, Err: "x"}}},
			{Name: "b", Location: "Tel Aviv"},
		},
		Replay: []hmac.ReplayEntry{{Signature: [32]byte{1, 2, 3}, Expires: t0.Add(time.Minute)}},
		Maintenance: Maintenance{NextID: 7, Windows: []Window{
			{ID: "api-2", App: "search", From: t0, To: t0.Add(time.Hour), Comment: "c"},
			{ID: "api-5", Location: "Frankfurt", Labels: map[string]string{"team": "x", "tier": "1"}, Cron: "0 3 * * *", Duration: 2 * time.Hour, TimeZone: "Europe/Berlin"},
		}},
	}
	addCheck(&s.System, t0, Up, 250*time.Millisecond)
	addCheck(&s.System, t0.Add(time.Hour), Unavailable, 0)
	addCheck(&s.Apps[0].Day, t0, Down, time.Second)
	addCheck(&s.Locations[0].Day, t0, Up, time.Second)
	checkRoundTrip(t, s)
}

// failingChecks is n checks a minute apart, failing with a text that names
// a port changing every check, every third one up.
func failingChecks(n int) []Check {
	var h []Check
	for i := range n {
		c := Check{At: t0.Add(time.Duration(i)*time.Minute).UnixMilli() * 1e6, Status: Unavailable,
			Err: fmt.Sprintf(`Get "http://app.internal/health": dial tcp 10.0.3.7:%d->10.1.0.1:8080: i/o timeout`, 40000+i*37)}
		if i%3 == 0 {
			c = Check{At: c.At, RT: time.Duration(i) * 1234 * time.Microsecond, Status: Up}
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
	s := &State{SavedAt: t0, Locations: []Location{{Name: "l"}}, Apps: []App{
		{Name: "failing", Location: "l", Checks: failingChecks(100),
			Last: last(Unavailable, t0, 0, failingChecks(100)[98].Err)},
		{Name: "mixed", Location: "l", Checks: []Check{
			{At: t0.UnixNano(), Status: Down, RT: time.Second, Err: "HTTP 500"},
			{At: t0.UnixNano() + 15e9, Status: Down, RT: 71 * time.Minute, Err: long},
			{At: t0.UnixNano() + 30e9, Status: Down, Err: long[:len(long)-1] + "y"},
			{At: t0.UnixNano() + 31e9, Status: Down, Err: longer},
			{At: t0.UnixNano() + 29e9, Status: Down, Err: longer + "z"}, // a clock that went back
			{At: t0.UnixNano() + 45e9, Status: Up, Err: "\xff\xfe"},
			{At: t0.UnixNano() + 60e9, Status: Up, RT: 7 * time.Microsecond},
			{At: t0.UnixNano() + 75e9, Status: Down, Err: "HTTP 500"},
		}, Last: last(Down, t0.Add(time.Minute), 3*time.Millisecond, "only the state's")},
		{Name: "fresh", Location: "l"},
		{Name: "before 1970", Location: "l", Checks: []Check{{At: -5e6, Status: Up}, {At: 0, Status: Down, Err: "e"}},
			Last: last(Down, time.Unix(0, 0), 0, "e")},
	}}
	for h := range 24 {
		addCheck(&s.Apps[0].Day, t0.Add(time.Duration(h)*time.Hour), Up, time.Duration(h)*time.Millisecond+333*time.Microsecond)
	}
	s.System = s.Apps[0].Day
	checkRoundTrip(t, s)
	one := &State{SavedAt: t0, Apps: s.Apps[:1]}
	if n, texts := len(Encode(one)), 66*len(failingChecks(100)[1].Err); n > 1500 {
		t.Errorf("100 checks, 66 of them failing with texts changing every check (%d bytes of text): %d bytes", texts, n)
	}
}

// v4App is an encoding-4 state of one app named "a" in location "l", whose
// checks, state, error texts and day window body writes.
func v4App(body func(e *Encoder)) []byte {
	e := NewEncoder(nil)
	e.Header(t0, nil)
	e.b[0] = 4 // no ledger section
	e.Minutes(0)
	e.uvarint(0) // system day window, of no hours
	e.Locations(0)
	e.Apps(1)
	e.App("a", "l")
	body(e)
	e.Replay(nil)
	e.Maintenance(&Maintenance{})
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
	return v4App(func(e *Encoder) {
		e.uvarint(k.checks)
		e.varint(k.dd)
		e.uvarint(k.rt)
		e.uvarint(k.status1)
		e.varint(-k.dd) // the same time again
		e.uvarint(0)
		e.uvarint(1) // up, no error
		e.b = append(e.b, 1, byte(Down))
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
	good, err := Decode(goodKnobs.encode())
	if err != nil {
		t.Fatalf("the good state: %v", err)
	}
	if h := good.Apps[0].Checks; len(h) != 2 || h[0].Err != "boom: 42" || h[0].Status != Down || h[0].RT != 1500*time.Microsecond ||
		h[1].At != h[0].At || h[0].At != t0.UnixNano() || good.Apps[0].Last.Err != "boomer 42" {
		t.Fatalf("the good state reads as %+v", good.Apps[0])
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
		"time out of range":                 func(k *v4Knobs) { k.dd = MaxCheckMillis + 1 },
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
		if _, err := Decode(k.encode()); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	k := goodKnobs
	k.first, k.p, k.s, k.mid = long, maxErrorText-1, 1, "" // as long as the longest kept: fine
	if _, err := Decode(k.encode()); err != nil {
		t.Errorf("a shared text of maxErrorText bytes: %v", err)
	}
	full := Encode(&State{SavedAt: t0, Apps: []App{{Name: "a", Checks: failingChecks(5), Last: last(Unavailable, time.Time{}, 0, "x")}}})
	for n := range len(full) {
		if _, err := Decode(full[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("the first %d of %d bytes: %v, want ErrCorrupt", n, len(full), err)
		}
	}
	if _, err := Decode(bytes.Clone(full)); err != nil {
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

// Minutes round-trip at the ends of what they hold. A minute past them is
// refused, as any value out of range; a count past 32 bits (which a
// history's bucket no longer holds) is kept at the most it holds.
func TestStateMinuteRange(t *testing.T) {
	s := &State{SavedAt: t0, Minutes: []Minute{
		{Minute: math.MinInt32, Up: math.MaxUint32, Down: 1, LastUp: math.MaxInt32},
		{Minute: -1, Down: 7, LastDown: 7},
		{Minute: math.MaxInt32, Up: 2, LastUnavailable: 5},
	}}
	checkRoundTrip(t, s)

	// A file of one minute, its minute and up count written as given.
	file := func(minute int64, up uint64) []byte {
		e := NewEncoder(nil)
		e.Header(t0, nil)
		e.uvarint(1)
		e.varint(minute)
		e.uvarint(up)
		e.uvarint(0)
		e.uvarint(0)
		e.uvarint(0)
		e.uvarint(0)
		rest := Encode(&State{SavedAt: t0})
		h := NewEncoder(nil)
		h.Header(t0, nil)
		return append(e.b, rest[len(h.b)+1:]...) // after the header and its count of no minutes
	}
	if got, err := Decode(file(math.MaxInt32, 3)); err != nil || got.Minutes[0].Minute != math.MaxInt32 || got.Minutes[0].Up != 3 {
		t.Fatalf("a minute in range: %+v, %v", got, err)
	}
	for _, m := range []int64{math.MaxInt32 + 1, math.MinInt32 - 1, math.MaxInt64} {
		if _, err := Decode(file(m, 3)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "minute") {
			t.Errorf("minute %d: %v, want ErrCorrupt naming the minute", m, err)
		}
	}
	if got, err := Decode(file(7, 1<<40)); err != nil || got.Minutes[0].Up != math.MaxUint32 {
		t.Errorf("an up count of 2^40: %+v, %v; want %d", got, err, uint32(math.MaxUint32))
	}
}

// ledgerState is a state of the current encoding whose ledger holds
// checks, outages and maintenance.
func ledgerState() []byte {
	l := ledger.New(ledger.Options{})
	l.SetLayout(t0, ledger.Layout{Apps: []ledger.AppRef{{Name: "a", Location: "l"}, {Name: "b", Location: "l"}}, Locations: []string{"l"},
		Services: []ledger.ServiceRef{{Name: "s", Apps: []int{0, 1}}}}, nil)
	l.Sync(t0, []ledger.Window{{Key: "w", From: t0.Add(time.Minute), To: t0.Add(3 * time.Minute), Apps: func() []int { return []int{1} }}}, nil)
	for k := range 10 {
		at := t0.Add(time.Duration(k) * 30 * time.Second)
		l.Check(0, at, timeline.State(k%3), time.Minute, false)
		l.Check(1, at, timeline.Up, time.Minute, false)
		l.EndCycle(at, time.Minute, []timeline.State{timeline.Up}, nil)
	}
	return Encode(&State{SavedAt: t0, Ledger: l.AppendBinary(nil)})
}

// A state with a ledger reads back whole, and encodes to the same bytes;
// a reader of the file gets the ledger's records from its section.
func TestStateLedgerRoundTrip(t *testing.T) {
	b := ledgerState()
	s, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Ledger) < 20 {
		t.Fatalf("ledger section of %d bytes", len(s.Ledger))
	}
	if saved, err := ledger.Decode(s.Ledger); err != nil || saved.Len() != 4 {
		t.Errorf("the ledger section decodes to %v records, %v; want 4 (2 apps, a location, a service)", saved.Len(), err)
	}
	if again := Encode(s); !bytes.Equal(again, b) {
		t.Errorf("re-encoded to %d bytes unlike the %d read", len(again), len(b))
	}
	// Every truncation is refused, as is a ledger cut short inside.
	for n := range len(b) {
		if _, err := Decode(b[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("the first %d of %d bytes: %v, want ErrCorrupt", n, len(b), err)
		}
	}
}

// FuzzDecode: no input panics the decoder, and what it accepts encodes
// back to the same bytes' meaning.
func FuzzDecode(f *testing.F) {
	s := &State{SavedAt: t0, Minutes: []Minute{{Minute: 7, Up: 1}},
		Apps: []App{{Name: "a", Location: "l", Last: last(Up, t0, 0, ""), Checks: []Check{{At: 5, Status: Down, Err: "e"}}}}}
	addCheck(&s.System, t0, Up, time.Second)
	f.Add(Encode(s))
	s.Maintenance = Maintenance{NextID: 3, Windows: []Window{{ID: "api-3", App: "a", Labels: map[string]string{"k": "v"}, From: t0, To: t0.Add(time.Hour)}}}
	f.Add(Encode(s))
	s.Apps = append(s.Apps, App{Name: "b", Checks: failingChecks(7), Last: last(Unavailable, t0, 0, "only the state's")})
	f.Add(Encode(s))
	f.Add(goodKnobs.encode())
	f.Add(ledgerState())
	f.Add(Encode(withQuery()))
	f.Add(goodV6.encode())
	shared := &State{SavedAt: t0, System: fullDay(), Locations: []Location{{Name: "l", Day: fullDay(3)}}}
	shared.Apps = []App{{Name: "a", Day: fullDay(3)}, {Name: "b", Day: fullDay()}}
	f.Add(Encode(shared))
	f.Add(textState(0))
	for _, file := range []string{"state-encoding-2.bin", "state-encoding-3.bin", "state-encoding-4.bin", "state-encoding-5.bin"} {
		f.Add(readFile(f, file))
	}
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		enc := Encode(got)
		if st := streamed(t, got, 7); !bytes.Equal(st, enc) {
			t.Fatalf("the stream encoder wrote %d bytes unlike Encode's %d", len(st), len(enc))
		}
		again, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-encoding an accepted state: %v", err)
		}
		if len(again.Apps) != len(got.Apps) || len(again.Minutes) != len(got.Minutes) || len(again.Replay) != len(got.Replay) ||
			len(again.Maintenance.Windows) != len(got.Maintenance.Windows) || !bytes.Equal(again.Ledger, got.Ledger) {
			t.Fatalf("re-encoding changed the state")
		}
		// Encodings 4 on keep checks as a history does: they come back the same.
		for i := range got.Apps {
			if b[0] >= 4 && !slices.Equal(got.Apps[i].Checks, again.Apps[i].Checks) || got.Apps[i].Last.Err != again.Apps[i].Last.Err {
				t.Fatalf("re-encoding changed app %q: %+v, then %+v", got.Apps[i].Name, got.Apps[i], again.Apps[i])
			}
		}
	})
}

// Apps that failed the same way (their backend down) saved the same error
// text: read back, they share one copy of it, as they did while running.
func TestDecodeSharesErrorTexts(t *testing.T) {
	const text = `query failed: Post "http://prometheus:9090/api/v1/query": dial tcp: connection refused`
	s := &State{SavedAt: t0, Locations: []Location{{Name: "l"}}}
	for i := range 3 {
		s.Apps = append(s.Apps, App{Name: fmt.Sprint("app-", i), Location: "l",
			Checks: []Check{{At: t0.UnixNano(), Status: Unavailable, Err: text}},
			Last:   last(Unavailable, t0, 0, text)})
	}
	got, err := Decode(Encode(s))
	if err != nil {
		t.Fatal(err)
	}
	first := unsafe.StringData(got.Apps[0].Last.Err)
	for _, a := range got.Apps {
		if a.Last.Err != text || unsafe.StringData(a.Last.Err) != first || unsafe.StringData(a.Checks[0].Err) != first {
			t.Errorf("app %s holds its own copy of the error text", a.Name)
		}
	}
}

// checkRoundTrip checks that s decodes from its encoding as it was, and
// returns what it decoded to.
func checkRoundTrip(t *testing.T, s *State) *State {
	t.Helper()
	got, err := Decode(Encode(s))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, got, stateCmp); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	return got
}
