package statefile

import (
	"errors"
	"testing"
	"time"
)

// fullDay is 24 hours of checks up to t0, every hour's response times
// those of the query, the hours of down listed down.
func fullDay(down ...int) Day {
	var d Day
	for h := range 24 {
		s := Up
		for _, x := range down {
			if x == h {
				s = Down
			}
		}
		for k := range 3 {
			addCheck(&d, t0.Add(-time.Duration(h)*time.Hour+time.Duration(k)*time.Minute), s, time.Duration(h*k+1)*time.Millisecond)
		}
	}
	return d
}

// Encoding 6 round-trips day windows that are the window before's, whole
// or in some hours, and writes a window the one before's in a byte.
func TestSharedDays(t *testing.T) {
	s := &State{SavedAt: t0, System: fullDay(), Locations: []Location{{Name: "l", Day: fullDay()}}}
	for _, d := range []Day{fullDay(), fullDay(), fullDay(3), fullDay(3, 7), {}, fullDay()} {
		s.Apps = append(s.Apps, App{Name: "a", Location: "l", Day: d})
	}
	checkRoundTrip(t, s)
	one := &State{SavedAt: t0, Apps: s.Apps[:1]}
	two := &State{SavedAt: t0, Apps: s.Apps[:2]}
	if n := len(Encode(two)) - len(Encode(one)); n > 9 { // name and location 4, no checks 2, state 1, texts 1, window 1
		t.Errorf("an app whose window is the app's before takes %d bytes", n)
	}
}

// dayState is an encoding-6 state whose system window is 1 hour of 2 up
// checks, and whose first location's window body writes.
func dayState(body func(e *Encoder)) []byte {
	e := NewEncoder(nil)
	e.Header(t0, nil)
	e.Minutes(0)
	e.BeginDay(1)
	e.HourCounts(100, HourCounts{Up: 2, RTN: 2, RTMicros: 50})
	e.Locations(1)
	e.Location("l")
	body(e)
	e.Apps(0)
	e.LedgerPieces(func(emit func([]byte) error) error { return emit(emptyLedger) })
	e.Replay(nil)
	e.Maintenance(&Maintenance{})
	return e.b
}

// Encoding 6 refuses day windows no encoder writes: a header of a shared
// window with hours, an hour shared that the window before lacks, an odd
// up count, more hours than a day.
func TestSharedDaysBad(t *testing.T) {
	good, err := Decode(dayState(func(e *Encoder) {
		e.uvarint(2 << 1)
		e.varint(100)
		e.uvarint(1) // the system's hour 100
		e.varint(1)
		e.uvarint(3 << 1)
		for range 4 {
			e.uvarint(0)
		}
	}))
	if err != nil {
		t.Fatalf("the good state: %v", err)
	}
	if d := good.Locations[0].Day; d[slotOf(100)].C.Up != 2 || d[slotOf(100)].C.RTN != 2 || d[slotOf(101)].C.Up != 3 || daySum(&d) != 5 {
		t.Fatalf("the good state's window reads as %+v", d)
	}
	for name, body := range map[string]func(e *Encoder){
		"a shared window with hours": func(e *Encoder) { e.uvarint(3) },
		"an hour the window before lacks": func(e *Encoder) {
			e.uvarint(1 << 1)
			e.varint(101)
			e.uvarint(1)
		},
		"an odd up count": func(e *Encoder) {
			e.uvarint(1 << 1)
			e.varint(101)
			e.uvarint(3)
			for range 4 {
				e.uvarint(0)
			}
		},
		"25 hours": func(e *Encoder) { e.uvarint(25 << 1) },
		"an hour given twice": func(e *Encoder) {
			e.uvarint(2 << 1)
			e.varint(100)
			e.uvarint(1)
			e.varint(0)
			e.uvarint(1)
		},
	} {
		if _, err := Decode(dayState(body)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}
