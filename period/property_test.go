package period_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/availmon/availmon/period"
)

// propertyZones are zones whose clocks do odd things: half-hour and
// quarter-hour offsets and changes, midnight skipped or shown twice, a
// skipped day, a two-hour change, clocks set back at 24:00.
var propertyZones = []string{
	"UTC", "Europe/Berlin", "America/New_York", "Asia/Kathmandu", "Australia/Lord_Howe",
	"America/Havana", "America/Santiago", "Pacific/Apia", "Pacific/Chatham", "America/St_Johns",
	"Asia/Tehran", "Africa/Casablanca", "Pacific/Kiritimati", "Asia/Beirut", "America/Sao_Paulo",
	"Antarctica/Troll", "Australia/Adelaide", "Asia/Kolkata", "Europe/Moscow",
}

var units = []period.Unit{period.Day, period.Week, period.Month, period.Quarter, period.Year}

// TestContainingProperties checks, for random instants from 1970 to 2100 in
// every zone, that the period of each unit that contains an instant holds
// it, that it and its neighbours tile time, and that its name parses back.
func TestContainingProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	lo, hi := utc(t, "1970-01-03T00:00:00Z").Unix(), utc(t, "2100-01-01T00:00:00Z").Unix()
	for _, name := range propertyZones {
		loc := zone(t, name)
		for range 300 {
			at := time.Unix(lo+rng.Int64N(hi-lo), 0)
			for _, u := range units {
				p := period.Containing(u, at, loc)
				r := p.In(loc)
				if !r.Contains(at) {
					t.Fatalf("%s: %v containing %v is %v", name, p, at, spanOf(r, loc))
				}
				if !p.Next().In(loc).Start.Equal(r.End) || !p.Prev().In(loc).End.Equal(r.Start) {
					t.Fatalf("%s: %v does not tile with its neighbours", name, p)
				}
				if q, err := period.Parse(p.String()); err != nil || q != p {
					t.Fatalf("%s: Parse(%q) = %v, %v", name, p.String(), q, err)
				}
			}
		}
	}
}

// TestSplitProperties cuts random ranges of up to three days by every kind
// of step and compares the cuts with boundaries found independently, by
// reading the zone's clock minute by minute.
func TestSplitProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 2))
	steps := []string{"15m", "30m", "45m", "1h", "3h", "12h", "1d", "1w"}
	// Since 1975 every zone's offset is whole minutes.
	lo, hi := utc(t, "1975-01-01T00:00:00Z").Unix(), utc(t, "2060-01-01T00:00:00Z").Unix()
	for _, name := range propertyZones {
		loc := zone(t, name)
		for i := range 40 {
			start := time.Unix(lo+rng.Int64N(hi-lo), 0).Truncate(time.Minute)
			r := period.Range{Start: start, End: start.Add(time.Duration(1+rng.Int64N(3*24*60)) * time.Minute)}
			if i%8 == 0 { // a change of the clocks, if the zone has one
				_, end := start.In(loc).ZoneBounds()
				if !end.IsZero() {
					at := end.Truncate(time.Minute)
					r = period.Range{Start: at.Add(-36 * time.Hour), End: at.Add(36 * time.Hour)}
				}
			}
			step := steps[rng.IntN(len(steps))]
			var got []time.Time
			prev := r.Start
			for part := range r.Split(mustStep(t, step), loc) {
				if !part.Start.Equal(prev) || !part.End.After(part.Start) {
					t.Fatalf("%s %s: part %v after %v: parts must be consecutive and not empty", name, step, spanOf(part, loc), prev)
				}
				if part.Start.Location() != loc || part.End.Location() != loc {
					t.Fatalf("%s %s: part %v is not in the zone", name, step, part)
				}
				got = append(got, part.Start)
				prev = part.End
			}
			if !prev.Equal(r.End) {
				t.Fatalf("%s %s: parts end at %v, want %v", name, step, prev, r.End)
			}
			want := clockBoundaries(r, step, loc)
			if len(got) != len(want) {
				t.Fatalf("%s %s over %v: %d parts, want %d\ngot  %v\nwant %v", name, step, spanOf(r, loc), len(got), len(want), got, want)
			}
			for k := range want {
				if !got[k].Equal(want[k]) {
					t.Fatalf("%s %s over %v: part %d starts at %v, want %v", name, step, spanOf(r, loc), k, got[k].In(loc), want[k].In(loc))
				}
			}
		}
	}
}

// clockBoundaries returns r.Start and the instants in r at which a part of
// step must start, walking the zone's clock minute by minute:
//   - for 1d and 1w, where the clock's date (its Monday, for 1w) first
//     passes the latest one it has shown;
//   - for shorter steps, where the clock shows a multiple of the step, or
//     jumps forward onto or over one.
func clockBoundaries(r period.Range, step string, loc *time.Location) []time.Time {
	wall := func(x time.Time) int64 {
		_, off := x.In(loc).Zone()
		return x.Unix() + int64(off)
	}
	day := func(x time.Time) int64 {
		d := floor(wall(x), 86400)
		if step == "1w" {
			d -= int64((x.In(loc).Weekday() + 6) % 7)
		}
		return d
	}
	out := []time.Time{r.Start}
	var seen int64
	for x := r.Start.Add(-72 * time.Hour); x.Before(r.End); x = x.Add(time.Minute) {
		var boundary bool
		switch step {
		case "1d", "1w":
			d := day(x)
			boundary = d > seen && x.After(r.Start.Add(-72*time.Hour))
			seen = max(seen, d)
		default:
			tick, _ := time.ParseDuration(step)
			n := int64(tick / time.Second)
			now, before := wall(x), wall(x.Add(-time.Minute))+60
			boundary = now%n == 0 || now > before && floor(now, n)*n >= before
		}
		if boundary && x.After(r.Start) {
			out = append(out, x)
		}
	}
	return out
}

func floor(a, b int64) int64 {
	if a < 0 {
		return -((-a + b - 1) / b)
	}
	return a / b
}
