package history

import (
	"testing"
	"time"

	"github.com/availmon/availmon/internal/statefile"
)

// A check shares its response time when a neighbour has the same time and
// the same nonzero response time; a zero one is never shared.
func TestSharesNeighbours(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC)
	type c struct {
		at time.Time
		rt time.Duration
	}
	cs := []c{
		{t0, 250 * time.Millisecond},                 // shares with 1
		{t0, 250 * time.Millisecond},                 // shares with 0
		{t0, 40 * time.Millisecond},                  // a probe's own
		{t0.Add(time.Second), 40 * time.Millisecond}, // same rt, another time
		{t0, 0}, // inline
		{t0, 0},
	}
	want := []bool{true, true, false, false, false, false}
	check := func(j int) (time.Time, time.Duration) { return cs[j].at, cs[j].rt }
	for i := range cs {
		if got := SharesNeighbours(len(cs), i, check); got != want[i] {
			t.Errorf("check %d: shares %v, want %v", i, got, want[i])
		}
	}
}

// A saved check is shared when a neighbouring app has one as far from its
// newest with the same time and response time.
func TestSharedInFile(t *testing.T) {
	ck := func(at int64, rt time.Duration) statefile.Check { return statefile.Check{At: at, RT: rt} }
	apps := []statefile.App{
		{Checks: []statefile.Check{ck(1, 5), ck(2, 7), ck(3, 9)}},
		{Checks: []statefile.Check{ck(2, 7), ck(3, 9)}},
		{Checks: []statefile.Check{ck(3, 8)}},
		{Checks: []statefile.Check{ck(2, 0), ck(3, 8)}},
	}
	want := [][]bool{{false, true, true}, {true, true}, {true}, {false, true}}
	for k := range apps {
		shared := SharedInFile(apps, k)
		for j := range apps[k].Checks {
			if got := shared(j); got != want[k][j] {
				t.Errorf("app %d check %d: shared %v, want %v", k, j, got, want[k][j])
			}
		}
	}
}
