package objective_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/timeline"
	"github.com/google/go-cmp/cmp"
)

// TestProperty holds Evaluate and Series, fed from a timeline.Record of
// random stretches of up, down and unknown time with maintenance windows in
// the past and ahead, to the plain model, for random targets, rolling and
// calendar windows and time zones (with changes of summer time), at a
// random instant.
func TestProperty(t *testing.T) {
	seeds := 60
	if testing.Short() || raceEnabled {
		seeds = 8
	}
	zones := []*time.Location{time.UTC, mustZone(t, "Europe/Berlin"), mustZone(t, "America/New_York"), mustZone(t, "Asia/Kathmandu")}
	targets := []target{{"99.9%", 1, 1000}, {"99%", 1, 100}, {"99.5%", 5, 1000}, {"90%", 1, 10}, {"99.99%", 1, 10000}, {"100%", 0, 1}}
	windows := []string{"1d", "3d", "7d", "28d", "30d", "month", "quarter"}
	seen := map[objective.State]int{}
	defer func() {
		if !t.Failed() && seeds >= 60 && len(seen) < 3 {
			t.Errorf("the histories gave only the states %v: make them vary more", seen)
		}
		t.Logf("states: %v", seen)
	}()
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 28))
			tg := targets[rng.IntN(len(targets))]
			o := objective.Objective{Name: "p", Target: mustTarget(t, tg.text),
				Window: mustWindow(t, windows[rng.IntN(len(windows))], zones[rng.IntN(len(zones))])}
			burn := seed%2 == 1
			if burn {
				tg = targets[rng.IntN(3)]
				o.Target = mustTarget(t, tg.text)
				o.Window = mustWindow(t, windows[3+rng.IntN(4)], o.Window.Location)
			}
			m, v, now := randomHistory(rng, burn)
			want, got := m.status(o, tg, now), o.Evaluate(now, v)
			seen[got.State]++
			if d := diff(want, got); d != "" {
				t.Fatalf("%s %s in %v at %v: Evaluate (-model +got):\n%s", tg.text, o.Window, o.Window.Location, now, d)
			}
			// A model read one range at a time gives the same.
			if d := diff(want, o.Evaluate(now, objective.TotalsFunc(m.totals))); d != "" {
				t.Fatalf("Evaluate of TotalsFunc (-model +got):\n%s", d)
			}
			// Two copies of the app as a selection: the same figures over
			// twice the time.
			two := o.Evaluate(now, objective.Views{v, v})
			two.Totals = timeline.Totals{Up: two.Totals.Up / 2, Down: two.Totals.Down / 2, Unknown: two.Totals.Unknown / 2,
				Maintenance: two.Totals.Maintenance / 2}
			two.Budget, two.Remaining = two.Budget/2, two.Remaining/2
			if d := cmp.Diff(want, two, approx, nanosecond); d != "" {
				t.Fatalf("a selection of two copies (-model +got, halved):\n%s", d)
			}
			if d := cmp.Diff(m.series(o, tg, now), o.Series(now, v), approx); d != "" {
				t.Fatalf("%s %s in %v at %v: Series (-model +got):\n%s", tg.text, o.Window, o.Window.Location, now, d)
			}
		})
	}
}

// nanosecond lets durations halved after rounding differ by a nanosecond.
var nanosecond = cmp.Comparer(func(a, b time.Duration) bool { return a-b <= 1 && b-a <= 1 })

// randomHistory returns 110 days of random stretches, 20 minutes to 2 days
// long or shorter, down for a few minutes more or less often and more so in
// the last hours, and up to 5 maintenance windows, some of
// them ahead of now, as the model and as a record. A burn is a history
// down only in its last hours, at a random rate, that pages or not.
func randomHistory(rng *rand.Rand, burn bool) (*model, timeline.View, time.Time) {
	const minutes = 110 * 24 * 60
	t0 := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(200*24*60)) * time.Minute)
	now := t0.Add(time.Duration(minutes-rng.IntN(20*24*60)) * time.Minute)
	m := &model{t0: t0, state: make([]timeline.State, minutes), maint: make([]bool, minutes)}
	var r timeline.Record
	pDown, pRecent := []int{0, 0, 1, 5}[rng.IntN(4)], 20
	if burn {
		pDown, pRecent = 0, 1+rng.IntN(40)
	}
	recent := m.index(now.Add(-[]time.Duration{time.Hour, 3 * time.Hour, 8 * time.Hour}[rng.IntN(3)]))
	for i := 0; i < m.index(now); {
		n := 20 + rng.IntN(2*24*60)
		if rng.IntN(3) == 0 {
			n = 1 + rng.IntN(120)
		}
		p := pDown
		if i < recent {
			n = min(n, recent-i)
		} else {
			n, p = 1+rng.IntN(15), pRecent
		}
		s := timeline.Up
		switch k := rng.IntN(100); {
		case k < p:
			s, n = timeline.Down, 1+rng.IntN(min(n, 20))
		case k < p+10:
			s = timeline.Unknown
		}
		n = min(n, m.index(now)-i)
		for j := i; j < i+n; j++ {
			m.state[j] = s
		}
		r.Check(t0.Add(time.Duration(i)*time.Minute), s, time.Duration(n)*time.Minute)
		i += n
	}
	for range rng.IntN(6) {
		a := rng.IntN(minutes)
		b := min(a+10+rng.IntN(36*60), minutes)
		for j := a; j < b; j++ {
			m.maint[j] = true
		}
		r.SetMaintenance(t0.Add(time.Duration(a)*time.Minute), t0.Add(time.Duration(b)*time.Minute), true)
	}
	return m, r.View(), now
}
