package period_test

import (
	"errors"
	"testing"
	"time"

	"github.com/availmon/availmon/period"
)

// fuzzZones are loaded once: the fuzzers resolve what they accept in each.
var fuzzZones = []string{"UTC", "Europe/Berlin", "Asia/Kathmandu", "Australia/Lord_Howe", "America/Havana"}

func loadZones(f *testing.F) []*time.Location {
	var out []*time.Location
	for _, name := range fuzzZones {
		out = append(out, zone(f, name))
	}
	return out
}

// FuzzParse: Parse never panics, refuses with ErrPeriod, and what it
// accepts prints as the same text, parses back to the same period and
// resolves to a range that its neighbours tile in every zone.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"2026-11-25", "2026-W47", "2026-W53", "2025-W53", "2026-11", "2026-Q4",
		"2026", "1970", "9999", "2026-13", "2026-02-29", "2028-02-29", "2026-Q0", "+2026", " 2026", "2026-w01", ""} {
		f.Add(s)
	}
	zones := loadZones(f)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := period.Parse(s)
		if err != nil {
			if !errors.Is(err, period.ErrPeriod) || p != (period.Period{}) {
				t.Fatalf("Parse(%q) = %v, %v", s, p, err)
			}
			return
		}
		if p.String() != s {
			t.Fatalf("Parse(%q).String() = %q", s, p.String())
		}
		q, err := period.Parse(p.String())
		if err != nil || q != p {
			t.Fatalf("Parse(%q) again = %v, %v; want %v", s, q, err, p)
		}
		for _, loc := range zones {
			r := p.In(loc)
			if r != q.In(loc) || r.End.Before(r.Start) || !p.Next().In(loc).Start.Equal(r.End) {
				t.Fatalf("%q in %v: %v, next starts %v", s, loc, r, p.Next().In(loc).Start)
			}
			if r.Duration() > 0 && period.Containing(p.Unit(), r.Start, loc) != p {
				t.Fatalf("%q in %v: its first instant is in %v", s, loc, period.Containing(p.Unit(), r.Start, loc))
			}
		}
	})
}

// FuzzParseWindow: ParseWindow never panics, refuses with ErrWindow, and
// what it accepts prints as the same text and lies in [1h, 400d].
func FuzzParseWindow(f *testing.F) {
	for _, s := range []string{"1h", "24h", "7d", "30d", "400d", "401d", "1y", "1h500ms", "59m", "-1h", "1h30m", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := period.ParseWindow(s)
		if err != nil {
			if !errors.Is(err, period.ErrWindow) {
				t.Fatalf("ParseWindow(%q): %v", s, err)
			}
			return
		}
		if w.String() != s || w.Duration() < time.Hour || w.Duration() > 400*24*time.Hour {
			t.Fatalf("ParseWindow(%q) = %v (%q)", s, w.Duration(), w.String())
		}
		again, err := period.ParseWindow(w.String())
		if err != nil || again != w {
			t.Fatalf("ParseWindow(%q) again = %v, %v", s, again, err)
		}
		now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
		if r := w.Ending(now); !r.End.Equal(now) || r.Duration() != w.Duration() {
			t.Fatalf("%q ending at %v = %v", s, now, r)
		}
	})
}

// FuzzParseStep: ParseStep never panics, refuses with ErrStep, and what it
// accepts prints as the same text and tiles a day in every zone.
func FuzzParseStep(f *testing.F) {
	for _, s := range []string{"15m", "1h", "45m", "1h30m", "1d", "24h", "1w", "7d", "10m", "2d", "0", ""} {
		f.Add(s)
	}
	zones := loadZones(f)
	day := time.Date(2026, 10, 25, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		st, err := period.ParseStep(s)
		if err != nil {
			if !errors.Is(err, period.ErrStep) {
				t.Fatalf("ParseStep(%q): %v", s, err)
			}
			return
		}
		if st.String() != s {
			t.Fatalf("ParseStep(%q).String() = %q", s, st.String())
		}
		for _, loc := range zones {
			r := period.Containing(period.Day, day, loc).In(loc)
			end := r.Start
			for part := range r.Split(st, loc) {
				if !part.Start.Equal(end) || !part.End.After(part.Start) {
					t.Fatalf("%q in %v: part %v after %v", s, loc, part, end)
				}
				end = part.End
			}
			if !end.Equal(r.End) {
				t.Fatalf("%q in %v: parts end at %v, want %v", s, loc, end, r.End)
			}
		}
	})
}
