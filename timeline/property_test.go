package timeline

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestProperty runs random sequences of checks (with gaps longer than
// their hold), maintenance marked ahead and in the past, fills, removals,
// prunes and restarts (encode, decode, go on) against the model, and holds
// every answer to it: exactly where no day flapped, to 15-minute edges on
// flapping days.
func TestProperty(t *testing.T) {
	seeds := 40
	if testing.Short() || raceEnabled {
		seeds = 6
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			propertyRun(t, seed, seed%3 == 2)
		})
	}
}

func propertyRun(t *testing.T, seed uint64, flapping bool) {
	rng := rand.New(rand.NewPCG(seed, 26))
	t0 := time.Date(2026, 3, 28, 0, 0, 0, 0, time.UTC)
	const days = 3
	m := newModel(t0, days)
	var r Record
	lo, hi := m.t0, m.t0+m.n
	now := lo + rng.Int64N(3600)
	align := func(x int64) int64 {
		if flapping {
			return x - x%bucketSec
		}
		return x
	}
	step := 0
	var log []string
	logf := func(format string, args ...any) { log = append(log, fmt.Sprintf(format, args...)) }
	defer func() {
		if t.Failed() {
			for _, l := range log[max(0, len(log)-40):] {
				t.Log(l)
			}
		}
	}()
	for now < hi-3*3600 {
		step++
		switch k := rng.IntN(100); {
		case k < 60 || flapping && k < 80: // a check, after an interval or a gap
			iv := 1 + rng.Int64N(600)
			if rng.IntN(10) == 0 {
				iv = 1 + rng.Int64N(3*3600)
			}
			if flapping && rng.IntN(3) > 0 {
				iv = 1 + rng.Int64N(40)
			}
			now += iv
			s := []State{Up, Up, Up, Down, Down, Unknown, Partial}[rng.IntN(7)]
			if !flapping && rng.IntN(4) > 0 {
				s = m.ps // most checks find what the last one found
			}
			hold := 1 + rng.Int64N(1200)
			logf("check %d %v hold %d", now-lo, s, hold)
			r.Check(instant(now), s, time.Duration(hold)*time.Second)
			m.check(now, s, hold)
		case k < 70: // a backfill over the past, only before the last check when flapping
			var spans []Span
			var es []edit
			top := now + rng.Int64N(7200) // past the last check: a later check wins over it
			if flapping {
				top = m.last
			}
			for range 1 + rng.IntN(4) {
				a := align(lo + rng.Int64N(max(top-lo, 1)))
				b := align(min(a+1+rng.Int64N(4*3600), top))
				s := []State{Up, Down, Unknown, Partial}[rng.IntN(4)]
				spans = append(spans, Span{From: instant(a), To: instant(b), State: s})
				es = append(es, edit{a: a, b: b, s: s})
			}
			logf("fill %v", es)
			r.Fill(spans...)
			m.fill(es)
		case k < 80: // maintenance, past or ahead, on or off
			a := align(lo + rng.Int64N(hi-lo-3600))
			b := align(min(a+1+rng.Int64N(6*3600), hi))
			on := rng.IntN(4) > 0
			logf("maintenance %d-%d %v", a-lo, b-lo, on)
			r.SetMaintenance(instant(a), instant(b), on)
			m.maint(a, b, on)
		case k < 83:
			x := now - rng.Int64N(60)
			logf("removed %d", x-lo)
			r.SetRemoved(instant(x))
			m.removed(x)
		case k < 85:
			c := align(lo + rng.Int64N(max(now-lo, 1)/4))
			logf("prune %d", c-lo)
			r.Prune(instant(c))
			m.prune(c)
		case k < 92: // a restart
			b, err := r.View().AppendBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			var n Record
			if err := n.UnmarshalBinary(b); err != nil {
				t.Fatalf("step %d: decoding what was encoded: %v", step, err)
			}
			logf("restart (%d bytes)", len(b))
			r = n
		default:
			compare(t, rng, &r, m, lo, hi, flapping)
		}
		if t.Failed() {
			return
		}
	}
	compare(t, rng, &r, m, lo, hi, flapping)
	t.Logf("%d steps, %d flapped days (%d edited inside buckets), at most %d changes in a day", step, len(m.flapped), len(m.dirty), m.maxDayChanges)
	if flapping && len(m.flapped) == 0 {
		t.Errorf("no day flapped (at most %d changes a day)", m.maxDayChanges)
	}
}

// compare asks the record about a few random ranges and holds it to the
// model.
func compare(t *testing.T, rng *rand.Rand, r *Record, m *model, lo, hi int64, flapping bool) {
	t.Helper()
	v := r.View()
	for range 3 {
		a := lo - 600 + rng.Int64N(hi-lo+1200)
		b := a + 1 + rng.Int64N(hi+600-a)
		fl, dirty := m.stored(a, b)
		if fl {
			if dirty {
				got := v.Totals(instant(a), instant(b))
				if n := got.Up + got.Down + got.Partial + got.Unknown + got.Maintenance; n != time.Duration(b-a)*time.Second || !got.Approximate {
					t.Errorf("[%d, %d) over a flapping day: %+v adds up to %v, want %v, approximate", a-lo, b-lo, got, n, time.Duration(b-a)*time.Second)
				}
				continue
			}
			a, b = a-a%bucketSec, b+(bucketSec-b%bucketSec)%bucketSec
		}
		wantT := m.totals(a, b)
		wantT.Approximate = fl
		if diff := cmp.Diff(wantT, v.Totals(instant(a), instant(b))); diff != "" {
			t.Errorf("Totals [%d, %d) (-want +got):\n%s", a-lo, b-lo, diff)
		}
		bounds := []time.Time{instant(a)}
		for x := a; x < b; {
			x = min(b, x+1+rng.Int64N(max((b-a)/3, 1)))
			if fl {
				x = min(b, x+(bucketSec-x%bucketSec)%bucketSec)
			}
			bounds = append(bounds, instant(x))
		}
		got := make([]Totals, len(bounds)-1)
		v.AddSteps(got, bounds)
		for i := range got {
			w := m.totals(sec(bounds[i]), sec(bounds[i+1]))
			f, _ := m.stored(sec(bounds[i]), sec(bounds[i+1]))
			w.Approximate = f
			if diff := cmp.Diff(w, got[i]); diff != "" {
				t.Errorf("AddSteps [%d, %d) step %d (-want +got):\n%s", a-lo, b-lo, i, diff)
			}
		}
		// Outages from exact time are exact. Next to a flapping day's time
		// an outage may join the day's approximate ones.
		wantO, gotO := m.outages(a, b), v.Outages(instant(a), instant(b))
		for _, o := range gotO {
			if !o.Approximate && !slices.Contains(wantO, o) {
				t.Errorf("Outages [%d, %d): %+v is not one of\n%+v", a-lo, b-lo, o, wantO)
			}
		}
		for _, o := range wantO {
			if f, _ := m.stored(sec(o.Start)-1, sec(o.End)+1); !f && !slices.Contains(gotO, o) {
				t.Errorf("Outages [%d, %d): %+v missing from\n%+v", a-lo, b-lo, o, gotO)
			}
		}
		first := a
		if len(wantO) > 0 {
			first = min(a, sec(wantO[0].Start))
		}
		if fl, _ := m.stored(first-1, b+1); fl {
			continue
		}
		if diff := cmp.Diff(wantO, gotO); diff != "" {
			t.Errorf("Outages [%d, %d) (-want +got):\n%s", a-lo, b-lo, diff)
		}
	}
}
