package ledger

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/availmon/availmon/timeline"
	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)

const (
	iv   = 30 * time.Second
	hold = 2 * iv
)

// two locations: a has apps x and y, b has z; service s is x and z.
func layout() Layout {
	return Layout{
		Apps:      []AppRef{{"x", "a"}, {"y", "a"}, {"z", "b"}},
		Locations: []string{"a", "b"},
		Services:  []ServiceRef{{Name: "s", Apps: []int{0, 2}}},
	}
}

// cycle feeds one cycle at t with the apps' states.
func cycle(l *Ledger, t time.Time, states ...timeline.State) []Change {
	for i, s := range states {
		l.Check(i, t, s, hold, false)
	}
	svc := timeline.Up
	if states[0] == timeline.Down && states[2] == timeline.Down {
		svc = timeline.Down
	}
	return l.EndCycle(t, hold, []timeline.State{svc}, nil)
}

const (
	U = timeline.Up
	D = timeline.Down
	N = timeline.Unknown
)

func TestFeedTotalsAndOutages(t *testing.T) {
	l := New(Options{})
	l.SetLayout(t0, layout(), nil)
	var changes []Change
	// 10 minutes: x down from minute 2 to minute 5, y down from 4 to 5.
	for k := range 21 {
		at := t0.Add(time.Duration(k) * iv)
		x, y := U, U
		if k >= 4 && k < 10 {
			x = D
		}
		if k >= 8 && k < 10 {
			y = D
		}
		changes = append(changes, cycle(l, at, x, y, U)...)
	}
	end := t0.Add(10 * time.Minute)
	b := l.Book(end)
	q := Query{From: t0, To: end}
	x := b.App(0, q)
	if x.Down != 3*time.Minute || x.Up != 7*time.Minute || x.Outages != 1 {
		t.Errorf("x: %+v", x)
	}
	loc := b.Location(0, b.LocationApps(0), q)
	if loc.Up != 16*time.Minute || loc.Down != 4*time.Minute || loc.Downtime != 3*time.Minute || loc.Outages != 1 {
		t.Errorf("location a: %+v", loc)
	}
	os := b.Outages(Location, 0, t0, end)
	if len(os) != 1 || !os[0].Full {
		// both apps down from minute 4 to 5: every app with a known state
		t.Errorf("location a's outages: %+v", os)
	}
	want := []Change{
		{Kind: App, Name: "x", Location: "a", Start: t0.Add(2 * time.Minute), Full: true},
		{Kind: Location, Name: "a", Start: t0.Add(2 * time.Minute)},
		{Kind: App, Name: "y", Location: "a", Start: t0.Add(4 * time.Minute), Full: true},
		{Kind: App, Name: "x", Location: "a", Start: t0.Add(2 * time.Minute), End: t0.Add(5 * time.Minute), Full: true},
		{Kind: App, Name: "y", Location: "a", Start: t0.Add(4 * time.Minute), End: t0.Add(5 * time.Minute), Full: true},
		{Kind: Location, Name: "a", Start: t0.Add(2 * time.Minute), End: t0.Add(5 * time.Minute), Full: true},
	}
	if d := cmp.Diff(want, changes); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}
	steps := b.App(0, Query{From: t0, To: end, Steps: []time.Time{t0, t0.Add(5 * time.Minute), end}})
	if steps.Steps[0].Down != 3*time.Minute || steps.Steps[1].Down != 0 || steps.Down != 3*time.Minute {
		t.Errorf("steps: %+v", steps.Steps)
	}
}

func TestOutageEndsWhenHoldLapses(t *testing.T) {
	l := New(Options{})
	l.SetLayout(t0, layout(), nil)
	cycle(l, t0, D, U, U)
	got := cycle(l, t0.Add(10*time.Minute), U, U, U)
	if len(got) != 2 || !got[0].End.Equal(t0.Add(hold)) {
		t.Errorf("changes: %+v", got)
	}
}

func TestMaintenanceWindows(t *testing.T) {
	l := New(Options{})
	l.SetLayout(t0, layout(), nil)
	oneOff := Window{Key: "one", From: t0.Add(time.Minute), To: t0.Add(3 * time.Minute), Apps: func() []int { return []int{0, 1} }}
	daily := Window{Key: "rec", Apps: func() []int { return []int{2} },
		Next: func(t time.Time) (time.Time, time.Time) {
			// every 4 minutes, 1 minute long
			s := t.Add(-time.Minute).Truncate(4 * time.Minute).Add(4 * time.Minute)
			if p := s.Add(-4 * time.Minute); !t.Before(p) && t.Before(p.Add(time.Minute)) {
				s = p
			}
			return s, s.Add(time.Minute)
		}}
	ws := []Window{oneOff, daily}
	for k := range 21 {
		at := t0.Add(time.Duration(k) * iv)
		l.Sync(at, ws, nil)
		cycle(l, at, U, U, U)
	}
	end := t0.Add(10 * time.Minute)
	b := l.Book(end)
	q := Query{From: t0, To: end}
	if x := b.App(0, q); x.Maintenance != 2*time.Minute || x.Up != 8*time.Minute {
		t.Errorf("x: %+v", x.Totals)
	}
	if a := b.Location(0, nil, q); a.Downtime != 0 {
		t.Errorf("a: %+v", a)
	}
	if a := b.View(Location, 0).Totals(t0, end); a.Maintenance != 2*time.Minute {
		t.Errorf("location a's own record: %+v (the window covers all its apps)", a)
	}
	// z: occurrences at 0 (in progress when the window came), 4 and 8 minutes.
	if z := b.App(2, q); z.Maintenance != 3*time.Minute {
		t.Errorf("z: %+v", z.Totals)
	}
	// Deleting the one-off window at 11 minutes, while a new one runs to
	// 20, unmarks its time from then.
	long := Window{Key: "long", From: t0.Add(10 * time.Minute), To: t0.Add(20 * time.Minute), Apps: func() []int { return []int{0} }}
	l.Sync(end, []Window{long, daily}, nil)
	cycle(l, end, U, U, U)
	at := end.Add(time.Minute)
	l.Sync(at.Add(iv), []Window{daily}, []Deleted{{Window: long, At: at}})
	cycle(l, at.Add(iv), U, U, U)
	b = l.Book(at.Add(iv))
	if x := b.App(0, Query{From: end, To: at.Add(iv)}); x.Maintenance != time.Minute {
		t.Errorf("x after the deletion: %+v", x.Totals)
	}
}

func TestRemovedAndBack(t *testing.T) {
	l := New(Options{Retention: 48 * time.Hour})
	l.SetLayout(t0, layout(), nil)
	cycle(l, t0, U, D, U)
	lay := layout()
	lay.Apps = lay.Apps[:2]
	lay.Services = nil
	l.SetLayout(t0.Add(time.Minute), lay, nil)
	cycle(l, t0.Add(time.Minute), U, U)
	b := l.Book(t0.Add(time.Minute))
	i, ok := b.Lookup(App, "z")
	if !ok || i != 2 || b.Current(App) != 2 || !b.Removed(App, i).Equal(t0.Add(time.Minute)) {
		t.Fatalf("z: %d %v current %d removed %v", i, ok, b.Current(App), b.Removed(App, i))
	}
	if _, ok := b.Lookup(Service, "s"); !ok {
		t.Error("the removed service is not kept")
	}
	l.SetLayout(t0.Add(2*time.Minute), layout(), nil)
	if b := l.Book(t0.Add(2 * time.Minute)); !b.Removed(App, 2).IsZero() {
		t.Error("z came back, still removed")
	}
	l.SetLayout(t0.Add(3*time.Minute), lay, nil)
	// Three days later the retention has passed over z's removal.
	cycle(l, t0.Add(72*time.Hour), U, U)
	if _, ok := l.Book(t0.Add(72*time.Hour)).Lookup(App, "z"); ok {
		t.Error("z kept past the retention")
	}
}

func TestBinaryRoundTrip(t *testing.T) {
	l := New(Options{})
	l.SetLayout(t0, layout(), nil)
	for k := range 30 {
		s := U
		if k%7 == 3 {
			s = D
		}
		cycle(l, t0.Add(time.Duration(k)*iv), s, U, N)
	}
	lay := layout()
	lay.Apps = lay.Apps[:2]
	lay.Services = nil
	now := t0.Add(15 * time.Minute)
	l.SetLayout(now, lay, nil)
	data := l.AppendBinary(nil)
	s, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	r := New(Options{})
	r.SetLayout(now, lay, nil)
	r.Restore(s, now)
	if again := r.AppendBinary(nil); string(again) != string(data) {
		t.Error("a restored ledger encodes otherwise")
	}
	b1, b2 := l.Book(now), r.Book(now)
	q := Query{From: t0, To: now}
	for k := range nKinds {
		if b1.Len(k) != b2.Len(k) {
			t.Fatalf("%s: %d and %d", k, b1.Len(k), b2.Len(k))
		}
		for i := range b1.Len(k) {
			if d := cmp.Diff(b1.View(k, i).Totals(q.From, q.To), b2.View(k, i).Totals(q.From, q.To)); d != "" {
				t.Errorf("%s %s: (-before +after)\n%s", k, b1.Name(k, i), d)
			}
		}
	}
	for _, bad := range [][]byte{nil, {2}, data[:len(data)-1], append(data, 0)} {
		if _, err := Decode(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Decode(%d bytes): %v", len(bad), err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	l := New(Options{})
	l.SetLayout(t0, layout(), nil)
	for k := range 10 {
		cycle(l, t0.Add(time.Duration(k)*iv), U, D, N)
	}
	f.Add(l.AppendBinary(nil))
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error not wrapping ErrCorrupt: %v", err)
			}
			return
		}
		r := New(Options{})
		r.Restore(s, t0)
		again, err := Decode(r.AppendBinary(nil))
		if err != nil {
			t.Fatalf("what Decode accepted encodes to what it refuses: %v", err)
		}
		if again.Len() != len(r.roster.ents[App])+len(r.roster.ents[Location])+len(r.roster.ents[Service]) {
			t.Fatal("records lost")
		}
	})
}

// A window deleted before any Sync saw it was in force from its start to
// its deletion: that time is marked, and only that; two deleted at
// different times over the same app each keep their own time, and a
// recurring one keeps its occurrence in progress up to its deletion.
func TestWindowDeletedUnseen(t *testing.T) {
	l := New(Options{})
	l.SetLayout(t0, layout(), nil)
	for k := range 10 {
		at := t0.Add(time.Duration(k) * iv)
		l.Sync(at, nil, nil)
		cycle(l, at, U, U, U)
	}
	now := t0.Add(10 * iv) // 5 minutes
	app0 := func() []int { return []int{0} }
	early := Window{Key: "early", From: t0.Add(time.Minute), To: now.Add(time.Hour), Apps: app0}
	late := Window{Key: "late", From: t0.Add(2 * time.Minute), To: now.Add(time.Hour), Apps: app0}
	every := Window{Key: "every", Apps: func() []int { return []int{1} },
		Next: func(t time.Time) (time.Time, time.Time) {
			s := t.Truncate(time.Hour)
			return s, s.Add(time.Hour)
		}}
	deleted := []Deleted{
		{Window: late, At: t0.Add(4 * time.Minute)},
		{Window: early, At: t0.Add(3 * time.Minute)},
		{Window: every, At: t0.Add(150 * time.Second)},
	}
	l.Sync(now, nil, deleted)
	cycle(l, now, U, U, U)
	l.Sync(now.Add(iv), nil, nil)
	cycle(l, now.Add(iv), U, U, U)
	b := l.Book(now.Add(iv))
	q := Query{From: t0, To: now.Add(iv)}
	if x := b.App(0, q); x.Maintenance != 3*time.Minute {
		t.Errorf("app 0: %v of maintenance, want 3m ([1m, 4m)): %+v", x.Maintenance, x.Totals)
	}
	if x := b.App(1, q); x.Maintenance != 150*time.Second {
		t.Errorf("app 1: %v of maintenance, want 2m30s ([0, 2m30s)): %+v", x.Maintenance, x.Totals)
	}
}

// A save encodes a Book taken under the cycle lock after the lock is let
// go: the cycles that run meanwhile must not show in what it writes.
func TestBookEncodesAsTaken(t *testing.T) {
	l := New(Options{})
	l.SetLayout(t0, layout(), nil)
	for k := range 20 {
		cycle(l, t0.Add(time.Duration(k)*iv), U, U, U)
	}
	at := t0.Add(20 * iv)
	want := l.AppendBinary(nil)
	book := l.Book(at)
	for k := range 40 {
		s := U
		if k%3 == 0 {
			s = D
		}
		cycle(l, at.Add(time.Duration(k)*iv), s, D, U)
	}
	lay := layout()
	lay.Apps = lay.Apps[1:]
	lay.Services = nil
	l.SetLayout(at.Add(time.Hour), lay, nil)
	if got := book.AppendBinary(nil); string(got) != string(want) {
		t.Errorf("a Book encodes %d bytes unlike the ledger's %d when it was taken", len(got), len(want))
	}
	if _, err := Decode(book.AppendBinary(nil)); err != nil {
		t.Error(err)
	}
}

// Books share chunks of views where records changed only by a check that
// found their state again: every Book must read, then and after later
// cycles, as the records did when it was taken, whatever changed since.
func TestBooksReadAsTaken(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const apps = 40
	lay := Layout{Locations: []string{"a", "b"}, Services: []ServiceRef{{Name: "s", Apps: []int{0, 1, 2}}}}
	for i := range apps {
		lay.Apps = append(lay.Apps, AppRef{Name: fmt.Sprint("app-", i), Location: lay.Locations[i%2]})
	}
	l := New(Options{})
	l.SetLayout(t0, lay, nil)
	// records encodes each entity's record as it is now, by the roster's order.
	records := func() [nKinds][]string {
		var out [nKinds][]string
		for k := range nKinds {
			for _, e := range l.roster.ents[k] {
				b, _ := e.rec.View().AppendBinary(nil)
				out[k] = append(out[k], string(b))
			}
		}
		return out
	}
	type taken struct {
		b    *Book
		want [nKinds][]string
	}
	var books []taken
	check := func(when string) {
		for n, tk := range books {
			for k := range nKinds {
				if tk.b.Len(k) != len(tk.want[k]) {
					t.Fatalf("%s: book %d: %d %ss, want %d", when, n, tk.b.Len(k), k, len(tk.want[k]))
				}
				for i, w := range tk.want[k] {
					if got, _ := tk.b.View(k, i).AppendBinary(nil); string(got) != w {
						t.Fatalf("%s: book %d: %s %d reads otherwise", when, n, k, i)
					}
				}
			}
		}
	}
	at, n := t0, apps
	for c := range 120 {
		at = at.Add(iv)
		for i := range n {
			s := U
			switch {
			case i%9 == 0:
				s = N // an app whose backend cannot tell
			case rng.IntN(20) == 0:
				s = D
			case rng.IntN(25) == 0:
				s = N
			}
			switch {
			case rng.IntN(50) == 0:
				continue // not checked this cycle
			case rng.IntN(30) == 0:
				l.Check(i, at.Add(time.Duration(rng.IntN(3))*time.Second), s, hold, false) // a late check
			default:
				l.Check(i, at, s, hold, false)
			}
		}
		l.EndCycle(at, hold, []timeline.State{U}, nil)
		if c == 60 {
			l.SetLayout(at, Layout{Apps: lay.Apps[5:], Locations: lay.Locations}, nil)
			n = apps - 5
		}
		b := l.Book(at)
		books = append(books, taken{b, records()})
		check(fmt.Sprint("cycle ", c))
	}
}
