package timeline

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestTalliesAgreeWithReading holds Totals and CountOutages, which take a
// range's middle from the tallies at the index's marks, to AddSteps and
// Outages, which read every piece of the range, exactly, over random
// ranges of random records long enough to have many marks: outages going
// on at a range's edges, flapping days, maintenance past and ahead, fills,
// removals, prunes and restarts. TestProperty holds the reading to the
// model.
func TestTalliesAgreeWithReading(t *testing.T) {
	seeds := 24
	if testing.Short() || raceEnabled {
		seeds = 4
	}
	var fast, all int
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			f, n := talliesRun(t, seed)
			fast, all = fast+f, all+n
		})
	}
	t.Logf("%d of %d ranges added up from tallies", fast, all)
	if fast < all/3 {
		t.Errorf("only %d of %d ranges added up from tallies", fast, all)
	}
}

func talliesRun(t *testing.T, seed uint64) (fast, all int) {
	rng := rand.New(rand.NewPCG(seed, 62))
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).Unix()
	const days = 150
	var r Record
	now, s := t0+rng.Int64N(3600), Up
	flapUntil := int64(0)
	for now < t0+days*daySec {
		switch k := rng.IntN(1000); {
		case k < 2: // a restart
			b, err := r.View().AppendBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			var n Record
			if err := n.UnmarshalBinary(b); err != nil {
				t.Fatalf("decoding what was encoded: %v", err)
			}
			r = n
		case k < 6:
			a := now - rng.Int64N(10*daySec)
			r.SetMaintenance(instant(a), instant(a+1+rng.Int64N(daySec)), rng.IntN(3) > 0)
		case k < 8:
			a := now + rng.Int64N(daySec)
			r.SetMaintenance(instant(a), instant(a+1+rng.Int64N(daySec)), true)
		case k < 10:
			a := now - rng.Int64N(10*daySec)
			r.Fill(Span{From: instant(a), To: instant(a + 1 + rng.Int64N(daySec/2)), State: []State{Up, Down, Partial}[rng.IntN(3)]})
		case k < 11:
			r.SetRemoved(instant(now - rng.Int64N(60)))
		case k < 12:
			r.SetRemoved(time.Time{})
		case k < 13:
			r.Prune(instant(t0 + rng.Int64N(max(now-t0, 1)/8)))
		case k < 14:
			flapUntil = now + rng.Int64N(daySec)
		case k < 20:
			compareTallied(t, rng, r.View(), t0, now)
		default:
			iv := 1 + rng.Int64N(1800)
			if now < flapUntil {
				iv = 1 + rng.Int64N(60)
			} else if rng.IntN(50) == 0 {
				iv = rng.Int64N(4 * 3600) // a gap
			}
			now += iv
			if now < flapUntil || rng.IntN(8) == 0 {
				s = []State{Up, Up, Down, Partial, Unknown}[rng.IntN(5)]
			}
			hold := 2 * iv
			if rng.IntN(20) == 0 {
				hold = 1 + rng.Int64N(iv)
			}
			r.Check(instant(now), s, time.Duration(hold)*time.Second)
		}
		if t.Failed() {
			return fast, all
		}
	}
	v := r.View()
	t.Logf("%d bytes, %d marks", len(v.data), len(v.idx()))
	for range 200 {
		if compareTallied(t, rng, v, t0, now) {
			fast++
		}
		all++
	}
	return fast, all
}

// tallyRange picks a range, its edges often where the tallies or the
// reading change: at a mark, next to one, at the end of the stored time,
// at the last check, on a day or a bucket.
func tallyRange(rng *rand.Rand, v *View, t0, now int64) (lo, hi int64) {
	edge := func() int64 {
		x := t0 - 3600 + rng.Int64N(now-t0+2*3600)
		var special []int64
		for _, p := range v.idx() {
			special = append(special, p.at(), p.at()-1, p.at()+1, p.start)
		}
		if v.x != nil {
			special = append(special, v.x.tail.at(), v.x.tail.at()+1)
		}
		special = append(special, v.dataEnd(), v.end, v.projFrom, v.projTo, v.last, dayOf(x), x-x%bucketSec)
		if rng.IntN(2) == 0 {
			return special[rng.IntN(len(special))]
		}
		return x
	}
	lo, hi = edge(), edge()
	if lo > hi {
		lo, hi = hi, lo
	}
	return lo, hi + 1
}

// compareTallied holds a random range's answers to those read piece by
// piece, and says whether they came from the tallies.
func compareTallied(t *testing.T, rng *rand.Rand, v View, t0, now int64) bool {
	t.Helper()
	lo, hi := tallyRange(rng, &v, t0, now)
	from, to := instant(lo), instant(hi)
	var want [1]Totals
	v.AddSteps(want[:], []time.Time{from, to})
	if diff := cmp.Diff(want[0], v.Totals(from, to)); diff != "" {
		t.Errorf("Totals [%d, %d) (-read +tallied):\n%s", lo-t0, hi-t0, diff)
	}
	wn, wa := 0, false
	for _, o := range v.Outages(from, to) {
		wn += o.Count
		wa = wa || o.Approximate
	}
	n, a := v.CountOutages(from, to)
	if n != wn || a != wa {
		t.Errorf("CountOutages [%d, %d) = %d, %v; the outages read add up to %d, %v", lo-t0, hi-t0, n, a, wn, wa)
	}
	if st, sn, sa := v.Summary(from, to); st != want[0] || sn != n || sa != a {
		t.Errorf("Summary [%d, %d) = %+v, %d, %v; want %+v, %d, %v", lo-t0, hi-t0, st, sn, sa, want[0], n, a)
	}
	return v.edges(lo, hi).ok
}

// A range that starts at the end of a flapping day whose mark the index
// holds, while the last check's state still covers part of that day, is
// read from the mark without the day's buckets (they are behind it).
func TestReadFromAFlappingDaysEnd(t *testing.T) {
	d := time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC)
	for n := 200; n < 600; n += 3 {
		var r Record
		for i := range n { // exact days before, 40 changes a day, in tokens: no run
			s := []State{Up, Down, Partial}[i%3]
			r.Check(d.Add(-time.Duration(n-i)*36*time.Minute), s, time.Hour)
		}
		for i := range 2 * ExactChangesPerDay { // a flapping day
			r.Check(d.Add(time.Duration(i)*5*time.Minute), []State{Down, Up}[i%2], time.Hour)
		}
		last := d.Add(time.Duration(2*ExactChangesPerDay) * 5 * time.Minute)
		r.Check(last, Up, time.Hour)
		r.Fill(Span{From: d, To: d.Add(3 * 24 * time.Hour), State: Up}) // past the day: it is written as a flapping day
		v := r.View()
		idx := v.idx()
		if len(idx) == 0 || idx[len(idx)-1].v1 != flap || idx[len(idx)-1].start != sec(d) {
			continue
		}
		from, to := d.Add(24*time.Hour), d.Add(48*time.Hour)
		var read [1]Totals
		v.AddSteps(read[:], []time.Time{from, to})
		if want := (Totals{Up: 24 * time.Hour}); read[0] != want {
			t.Errorf("AddSteps from the flapping day's end = %+v, want %+v", read[0], want)
		}
		if got := v.Totals(from, to); got != read[0] {
			t.Errorf("Totals = %+v, AddSteps %+v", got, read[0])
		}
		return
	}
	t.Fatal("no record had its last mark on the flapping day")
}
