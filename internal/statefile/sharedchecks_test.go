package statefile

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// queryState is a state of apps one query answered side by side (the same
// check times and response times, the newest checks aligned; one failing
// a check, one finding the app unavailable), an app of its own, a fresh
// one and one after it. testdata/state-encoding-5.bin is it with
// ledgerState's ledger, as the encoder of encoding 5 (commit 611c8af)
// wrote it.
func queryState() *State {
	s := &State{SavedAt: t0, Interval: &Interval{D: 2 * time.Second, Text: "2s"}, Locations: []Location{{Name: "l"}}}
	var shared []Check
	for i := range 6 {
		shared = append(shared, Check{At: t0.Add(time.Duration(i)*2*time.Second + time.Duration(i*i)*time.Millisecond).UnixNano(),
			RT: time.Duration(300+i*17) * time.Millisecond, Status: Up})
	}
	for k := range 3 {
		cs := append([]Check(nil), shared[k:]...)
		if k == 1 {
			cs[2].Status, cs[2].Err = Down, "HTTP 500"
		}
		s.Apps = append(s.Apps, App{Name: "q" + string(rune('a'+k)), Location: "l", Checks: cs, Last: last(Up, t0.Add(10*time.Second), 385*time.Millisecond, "")})
		addCheck(&s.Apps[k].Day, t0, Up, 300*time.Millisecond)
	}
	s.Apps = append(s.Apps, App{Name: "own", Location: "l", Checks: failingChecks(4), Last: last(Unavailable, t0, 0, "x")},
		App{Name: "fresh", Location: "l"})
	addCheck(&s.System, t0, Up, 300*time.Millisecond)
	return s
}

// A file of encoding 5 (written by the availmon before checks were written
// relative to the app before) reads as the state it was written from, and
// written again as the current encoding it reads back the same.
func TestStateEncoding5Read(t *testing.T) {
	got, err := Decode(readFile(t, "state-encoding-5.bin"))
	if err != nil {
		t.Fatalf("an encoding-5 file: %v", err)
	}
	want := queryState()
	led, err := Decode(ledgerState())
	if err != nil {
		t.Fatal(err)
	}
	want.Ledger = led.Ledger
	noRecords := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Records" }, cmp.Ignore())
	if diff := cmp.Diff(want, got, stateCmp, noRecords); diff != "" {
		t.Errorf("the encoding-5 file (-built anew +read):\n%s", diff)
	}
	b := Encode(got)
	again, err := Decode(b)
	if err != nil || b[0] != Version {
		t.Fatalf("written again as encoding %d: %v", b[0], err)
	}
	if diff := cmp.Diff(got, again, stateCmp, noRecords); diff != "" {
		t.Errorf("written again (-old +now):\n%s", diff)
	}
}

// withQuery is the apps of queryState with more after them: one that
// found every app of the query unavailable (its checks at the query's
// times without a response time), then one that measured them again, and
// one whose checks the app before has only some of.
func withQuery() *State {
	s := queryState()
	q := s.Apps[0].Checks
	down := App{Name: "unavailable", Location: "l", Checks: append([]Check(nil), q...)}
	for i := range down.Checks {
		down.Checks[i].RT, down.Checks[i].Status, down.Checks[i].Err = 0, Unavailable, "no series"
	}
	again := App{Name: "measured", Location: "l", Checks: append([]Check(nil), q...)}
	longer := App{Name: "longer", Location: "l", Checks: append(failingChecks(3), q...)}
	s.Apps = append(s.Apps, App{Name: "q", Location: "l", Checks: q}, down, again, longer)
	return s
}

// Encoding 6 round-trips apps that share a query's checks, and writes a
// shared app in a few bytes.
func TestSharedChecksRoundTrip(t *testing.T) {
	s := withQuery()
	checkRoundTrip(t, s)
	alone := &State{SavedAt: t0, Apps: s.Apps[len(s.Apps)-2 : len(s.Apps)-1]}
	after := &State{SavedAt: t0, Apps: s.Apps[len(s.Apps)-3 : len(s.Apps)-1]}
	if own, shared := len(Encode(alone)), len(Encode(after))-len(Encode(&State{SavedAt: t0, Apps: s.Apps[len(s.Apps)-3 : len(s.Apps)-2]})); shared > own-20 {
		t.Errorf("an app measured at its query's checks after one that found it unavailable takes %d bytes, alone %d", shared, own)
	}
}

// sharingApps is apps apps of n checks each, every app the query's.
func sharingApps(apps, n int) *State {
	s := &State{SavedAt: t0}
	var cs []Check
	for i := range n {
		cs = append(cs, Check{At: t0.Add(time.Duration(i) * time.Second).UnixNano(), RT: time.Duration(i+1) * time.Millisecond, Status: Up})
	}
	for a := range apps {
		s.Apps = append(s.Apps, App{Name: fmt.Sprint(a), Checks: cs})
	}
	return s
}

// A file holds at most checksPerByte checks a byte besides freeChecks:
// apps sharing more are written in full, and read back the same.
func TestSharedChecksBound(t *testing.T) {
	s := sharingApps(40, 4000) // 160,000 checks, far more than 8 a byte once shared
	b := Encode(s)
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Apps {
		if !slices.Equal(s.Apps[i].Checks, got.Apps[i].Checks) {
			t.Fatalf("app %d reads back otherwise", i)
		}
	}
	if n := 40 * 4000; uint64(n) > checksPerByte*uint64(len(b))+freeChecks {
		t.Errorf("%d checks in %d bytes", n, len(b))
	}
	small := Encode(sharingApps(40, 100))
	if len(small) > 40*30+1000 {
		t.Errorf("40 apps of 100 shared checks: %d bytes", len(small))
	}
}

// v6App is an encoding-6 state of a first app "a" of two checks a second
// apart with response times of 1ms and 2ms, then an app "b" whose checks
// body writes, then its state, its error texts and no day window.
func v6App(body func(e *Encoder)) []byte {
	e := appsStart(2)
	e.BeginChecks(2, 0)
	e.Check(t0.UnixMilli(), 1000, Up, 0)
	e.Check(t0.UnixMilli()+1000, 2000, Up, 0)
	e.Last(&Last{})
	e.ErrTexts()
	e.BeginDay(0)
	e.App("b", "l")
	body(e)
	e.b = append(e.b, 0) // never checked
	e.uvarint(1)         // one error text
	e.uvarint(0)
	e.uvarint(0)
	e.str("boom")
	e.uvarint(0) // no hours
	e.LedgerPieces(func(emit func([]byte) error) error { return emit(emptyLedger) })
	e.Replay(nil)
	e.Maintenance(&Maintenance{})
	return e.b
}

// v6Knobs are the checks of app "b" v6Bad writes: n checks in runs, then
// the checks of kind 0 as (time less predicted, response time) pairs.
type v6Knobs struct {
	n    uint64
	runs [][2]uint64 // word, length
	own  [][2]int64
}

func (k v6Knobs) encode() []byte { return v6App(k.section) }

// section writes the checks section of k.
func (k v6Knobs) section(e *Encoder) {
	e.uvarint(k.n)
	e.uvarint(uint64(len(k.runs)))
	for _, r := range k.runs {
		e.uvarint(r[0])
		e.uvarint(r[1])
	}
	for _, o := range k.own {
		e.varint(o[0])
		e.uvarint(uint64(o[1]))
	}
}

// goodV6: b's first check is its own, 5 s before a's first with a
// response time of 7µs; its second shares a's first; its third has a's
// second's time, no response time, and fails with the text.
var goodV6 = v6Knobs{n: 3, runs: [][2]uint64{{uint64(Down), 1}, {sharedCheck<<2 | uint64(Up), 1}, {1<<4 | sharedTime<<2 | uint64(Unavailable), 1}},
	own: [][2]int64{{t0.UnixMilli() - 5000, 7}}}

// Encoding 6 refuses what no encoder writes: runs that do not cover the
// checks, an unknown kind, a shared check the app before lacks, more
// checks than the file may hold, times and response times out of range;
// and every truncation of a good state.
func TestSharedChecksBad(t *testing.T) {
	good, err := Decode(goodV6.encode())
	if err != nil {
		t.Fatalf("the good state: %v", err)
	}
	if h := good.Apps[1].Checks; len(h) != 3 || h[0].At != t0.Add(-5*time.Second).UnixNano() || h[0].RT != 7*time.Microsecond || h[0].Status != Down ||
		h[1].At != t0.UnixNano() || h[1].RT != time.Millisecond || h[1].Status != Up || h[1].Err != "" ||
		h[2].At != t0.Add(time.Second).UnixNano() || h[2].RT != 0 || h[2].Status != Unavailable || h[2].Err != "boom" {
		t.Fatalf("the good state reads as %+v", good.Apps[1].Checks)
	}
	for name, change := range map[string]func(k *v6Knobs){
		"runs short of the checks": func(k *v6Knobs) { k.n = 4 },
		"runs past the checks":     func(k *v6Knobs) { k.n = 2; k.own = nil },
		"a run of no checks":       func(k *v6Knobs) { k.runs = append(k.runs, [2]uint64{0, 0}) },
		"more runs than checks":    func(k *v6Knobs) { k.n = 1; k.runs = k.runs[:1]; k.own = nil; k.runs = append(k.runs, k.runs[0]) },
		"kind 3":                   func(k *v6Knobs) { k.runs[2][0] = 3<<2 | uint64(Down) },
		"status code 3":            func(k *v6Knobs) { k.runs[2][0] = 3 },
		"error text out of table":  func(k *v6Knobs) { k.runs[2][0] = 2<<4 | uint64(Down) },
		"a share the app before lacks": func(k *v6Knobs) {
			k.n = 4
			k.runs = append([][2]uint64{{sharedCheck<<2 | uint64(Up), 1}}, k.runs...)
		},
		"absurd number of checks":    func(k *v6Knobs) { k.n = 1 << 40 },
		"huge run":                   func(k *v6Knobs) { k.runs[0][1] = math.MaxUint64 },
		"time out of range":          func(k *v6Knobs) { k.own[0][0] = MaxCheckMillis + 1 },
		"time delta out of range":    func(k *v6Knobs) { k.own[0][0] = math.MinInt64 },
		"response time out of range": func(k *v6Knobs) { k.own[0][1] = math.MaxUint32 + 1 },
	} {
		k := goodV6
		k.runs = append([][2]uint64(nil), goodV6.runs...)
		k.own = append([][2]int64(nil), goodV6.own...)
		change(&k)
		if _, err := Decode(k.encode()); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	full := Encode(withQuery())
	for n := range len(full) {
		if _, err := Decode(full[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("the first %d of %d bytes: %v, want ErrCorrupt", n, len(full), err)
		}
	}
}

// A file of few bytes cannot stand for more checks than the bound: one
// app's checks shared by apps of a few bytes each are refused past it.
func TestSharedChecksRefusedPastBound(t *testing.T) {
	e := NewEncoder(nil)
	e.Header(t0, nil)
	e.Minutes(0)
	e.BeginDay(0)
	e.Locations(0)
	const n, apps = 1 << 15, 1000
	e.Apps(apps)
	for a := range apps {
		e.App("", "")
		if a == 0 {
			e.BeginChecks(n, 0)
			for i := range n {
				e.Check(int64(i), 1, Up, 0)
			}
			e.checksOf(false)
		} else {
			e.uvarint(n)
			e.uvarint(1)
			e.uvarint(sharedCheck<<2 | uint64(Up))
			e.uvarint(n)
		}
		e.b = append(e.b, 0) // never checked
		e.uvarint(0)         // no texts
		e.uvarint(0)         // no hours
		if a == 0 {
			keepRTs(e.checks, nil)
			e.prevChecks, e.checks = e.checks, nil
		}
	}
	e.LedgerPieces(func(emit func([]byte) error) error { return emit(emptyLedger) })
	e.Replay(nil)
	e.Maintenance(&Maintenance{})
	if _, err := Decode(e.b); !errors.Is(err, ErrCorrupt) {
		t.Errorf("%d checks in %d bytes: %v, want ErrCorrupt", n*apps, len(e.b), err)
	}
}

// FuzzSharedChecks: no checks section of an app after another panics the
// decoder, and what it accepts encodes back to the same checks.
func FuzzSharedChecks(f *testing.F) {
	for _, k := range []v6Knobs{goodV6, {n: 2, runs: [][2]uint64{{sharedCheck<<2 | uint64(Up), 2}}}} {
		e := NewEncoder(nil)
		k.section(e)
		f.Add(e.b)
	}
	f.Fuzz(func(t *testing.T, section []byte) {
		got, err := Decode(v6App(func(e *Encoder) { e.b = append(e.b, section...) }))
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		again, err := Decode(Encode(got))
		if err != nil {
			t.Fatalf("re-encoding an accepted state: %v", err)
		}
		for i := range got.Apps {
			if !slices.Equal(got.Apps[i].Checks, again.Apps[i].Checks) {
				t.Fatalf("re-encoding changed app %q: %+v, then %+v", got.Apps[i].Name, got.Apps[i].Checks, again.Apps[i].Checks)
			}
		}
	})
}

// Encoding 6 writes an app's error texts that the last table of texts has
// at the same index as a byte each, past apps without texts, and reads
// them back as one copy.
func TestSharedErrTexts(t *testing.T) {
	const text = `prometheus main: Post "http://127.0.0.1:43667/api/v1/query": context deadline exceeded`
	failing := func(name string, texts ...string) App {
		a := App{Name: name, Location: "l"}
		for i, x := range texts {
			a.Checks = append(a.Checks, Check{At: t0.Add(time.Duration(i) * time.Second).UnixNano(), Status: Unavailable, Err: x})
		}
		return a
	}
	s := &State{SavedAt: t0, Apps: []App{failing("a", text, "no sample"), failing("b", text, "no sample"), {Name: "up"},
		failing("c", text, "no sample", "other"), failing("d", "no sample", text)}}
	got := checkRoundTrip(t, s)
	one := len(Encode(&State{SavedAt: t0, Apps: s.Apps[:1]}))
	// Name and location 4, two checks of the times before in two runs 6,
	// state 1, two texts of the table before 3, window 1.
	if two := len(Encode(&State{SavedAt: t0, Apps: s.Apps[:2]})); two-one > 15 {
		t.Errorf("an app failing with the texts of the app before takes %d bytes", two-one)
	}
	if unsafe.StringData(got.Apps[3].Checks[0].Err) != unsafe.StringData(got.Apps[0].Checks[0].Err) {
		t.Errorf("a text of the reference table reads as a copy of its own")
	}
}

// textState is an encoding-6 state of one app without checks whose one
// error text is written with tag (and, for an even tag, as a text "x").
func textState(tag uint64) []byte {
	e := appsStart(1)
	e.uvarint(0) // no checks
	e.uvarint(0) // in no runs
	e.b = append(e.b, 0)
	e.uvarint(1)
	e.uvarint(tag)
	if tag&1 == 0 {
		e.uvarint(0)
		e.str("x")
	}
	e.uvarint(0) // no hours
	e.LedgerPieces(func(emit func([]byte) error) error { return emit(emptyLedger) })
	e.Replay(nil)
	e.Maintenance(&Maintenance{})
	return e.b
}

// Encoding 6 refuses a text of the reference table when there is none,
// and a tag no encoder writes.
func TestSharedErrTextsBad(t *testing.T) {
	if _, err := Decode(textState(0)); err != nil {
		t.Fatalf("the good state: %v", err)
	}
	for name, tag := range map[string]uint64{"the reference has no text": 1, "odd tag 3": 3} {
		if _, err := Decode(textState(tag)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

// appsStart is an encoder of a state without minutes, system day or
// locations, at its first of n apps, "a" in location "l".
func appsStart(n int) *Encoder {
	e := NewEncoder(nil)
	e.Header(t0, nil)
	e.Minutes(0)
	e.BeginDay(0)
	e.Locations(0)
	e.Apps(n)
	e.App("a", "l")
	return e
}
