package gcpace

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestGCPercent(t *testing.T) {
	const mb = 1 << 20
	for _, tt := range []struct {
		name       string
		live, scan uint64
		want       int
	}{
		{"nothing measured yet", 0, 0, Default},
		{"heap at the floor: unchanged", 16 * mb, 4 * mb, Default},
		{"all pointers: unchanged", 500 * mb, 500 * mb, Default},
		// 10,000 apps: the headroom is 8 MB (35% of the floor), not
		// 11.
		{"small heap of few pointers", 32 * mb, 10 * mb, 25},
		// 400 days of 10 outages a day at 10,000 apps: the headroom is
		// 10 MB, not 69.
		{"large pointer-free record", 197 * mb, 30 * mb, 5},
		{"pointers above the floor", 400 * mb, 200 * mb, 17},
		{"huge record: bounded below", 4000 * mb, 30 * mb, minGOGC},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := gcPercent(tt.live, tt.scan); got != tt.want {
				t.Errorf("gcPercent(%d MB, %d MB) = %d, want %d", tt.live/mb, tt.scan/mb, got, tt.want)
			}
		})
	}
}

// The pacer returns when its context ends.
func TestPaceGCStops(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Pace(ctx, true)
	}()
	cancel()
	<-done
}

// The soft memory limit is the goal, 1/32 over it and the runtime's
// other memory, over the 95% the scavenger works toward; a heap that grew
// by more than a quarter since the collection before has none.
func TestMemoryLimit(t *testing.T) {
	const mb = 1 << 20
	for _, tt := range []struct {
		name    string
		prev, r heapReading
		p       int
		want    int64
	}{
		{"first collection", heapReading{}, heapReading{live: 32 * mb, other: 4 * mb}, 25, math.MaxInt64},
		{"restore under way", heapReading{live: 100 * mb}, heapReading{live: 126 * mb, other: 4 * mb}, 20, math.MaxInt64},
		// goal 40 MB, + 1.25 + 4 = 45.25 MB, / 0.95.
		{"steady", heapReading{live: 30 * mb}, heapReading{live: 32 * mb, other: 4 * mb}, 25, 181 * mb / 4 * 100 / 95},
		{"a quarter larger: steady", heapReading{live: 100 * mb}, heapReading{live: 125 * mb, other: 4 * mb}, 8, (135*mb + 135*mb/32 + 4*mb) * 100 / 95},
		// goal 214 MB, + 6.6875 + 6.
		{"after a prune", heapReading{live: 400 * mb}, heapReading{live: 200 * mb, other: 6 * mb}, 7, (214*mb + 214*mb/32 + 6*mb) * 100 / 95},
		{"nothing live", heapReading{live: 10 * mb}, heapReading{}, Default, math.MaxInt64},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := memoryLimit(tt.prev, tt.r, tt.p); got != tt.want {
				t.Errorf("memoryLimit = %d (%.2f MB), want %d (%.2f MB)", got, float64(got)/mb, tt.want, float64(tt.want)/mb)
			}
		})
	}
}

// The pacer sets the percentage from its first reading, right as it
// starts (after a restore the heap is mostly the record), and follows the
// collection that ends after a prune freed much within paceEvery, not
// after a long period at a percentage made for another heap. The memory
// limit follows the first collection that finds the heap holding still.
func TestPaceFollowsCollections(t *testing.T) {
	const mb = 1 << 20
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		heap := heapReading{live: 197 * mb, scan: 30 * mb, cycles: 7, other: 6 * mb}
		var set []int
		var limits []int64
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			pace(ctx, func() (heapReading, bool) {
				mu.Lock()
				defer mu.Unlock()
				return heap, true
			}, func(p int) {
				mu.Lock()
				defer mu.Unlock()
				set = append(set, p)
			}, func(l int64) {
				mu.Lock()
				defer mu.Unlock()
				limits = append(limits, l)
			})
		}()
		synctest.Wait()
		mu.Lock()
		if !slices.Equal(set, []int{5}) || len(limits) != 0 {
			t.Errorf("as the pacer starts: set %v and limits %v, want [5] and none", set, limits)
		}
		mu.Unlock()
		step := func(name string, r heapReading, want []int, wantLimits []int64) {
			t.Helper()
			mu.Lock()
			heap = r
			mu.Unlock()
			time.Sleep(paceEvery)
			synctest.Wait()
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(set, want) || !slices.Equal(limits, wantLimits) {
				t.Errorf("%s: set %v and limits %v, want %v and %v", name, set, limits, want, wantLimits)
			}
		}
		// Figures change only with a collection: the same count is the
		// same reading.
		still := heapReading{live: 200 * mb, scan: 30 * mb, cycles: 8, other: 6 * mb}
		stillLimit := memoryLimit(heap, still, 5)
		step("no collection", heapReading{live: 400 * mb, scan: 200 * mb, cycles: 7}, []int{5}, nil)
		step("the heap holds still", still, []int{5}, []int64{stillLimit})
		pruned := heapReading{live: 64 * mb, scan: 30 * mb, cycles: 9, other: 6 * mb}
		prunedLimit := memoryLimit(still, pruned, 16)
		step("a prune freed much", pruned, []int{5, 16}, []int64{stillLimit, prunedLimit})
		step("no change", heapReading{live: 64 * mb, scan: 30 * mb, cycles: 10, other: 6 * mb}, []int{5, 16}, []int64{stillLimit, prunedLimit})
		step("the heap grows", heapReading{live: 128 * mb, scan: 30 * mb, cycles: 11, other: 6 * mb}, []int{5, 16, 8}, []int64{stillLimit, prunedLimit, math.MaxInt64})
		cancel()
		<-done
	})
}

// The runtime turns a soft memory limit into a heap goal of its own: the
// limit less the memory that is neither heap objects nor free pages (the
// heap's unused slots and the runtime's other memory), less 3%
// (memoryLimitHeapGoal in runtime/mgcpacer.go). Were that below the goal
// the pacer sets, the limit would pace the collections, and at or below
// the live heap the collector would run without pause (up to its CPU
// limiter's half of the process): the limit must leave room for the
// unused slots measured, however fragmented the heap.
func TestMemoryLimitLeavesTheGoal(t *testing.T) {
	const mb = 1 << 20
	for _, p := range []int{minGOGC, 7, 25, Default} {
		for _, unusedPct := range []uint64{0, 5, 10, 20, 40} {
			r := heapReading{live: 200 * mb, other: 6 * mb}
			r.unused = r.live * unusedPct / 100
			l := uint64(memoryLimit(heapReading{live: 200 * mb}, r, p))
			g := l - r.unused - r.other
			g -= g / 100 * 3
			if goal := r.live + r.live*uint64(p)/100; g < goal {
				t.Errorf("GOGC %d, %d%% of the live heap unused: the limit's heap goal %.1f MB is under the pacer's %.1f MB",
					p, unusedPct, float64(g)/mb, float64(goal)/mb)
			}
		}
	}
}
