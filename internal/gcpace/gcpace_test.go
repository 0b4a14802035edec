package gcpace

import (
	"context"
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
		{"small heap: unchanged", 45 * mb, 20 * mb, Default},
		{"at the floor: unchanged", 64 * mb, 10 * mb, Default},
		{"all pointers: unchanged", 500 * mb, 500 * mb, Default},
		// 400 days of record at 10,000 apps: the headroom is 32 MB,
		// not 109.
		{"large pointer-free record", 218 * mb, 30 * mb, 14},
		{"pointers above the floor", 400 * mb, 200 * mb, 25},
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
		Pace(ctx)
	}()
	cancel()
	<-done
}

// The pacer sets the percentage from its first reading, right as it
// starts (after a restore the heap is mostly the record), and follows the
// collection that ends after a prune freed much within paceEvery, not
// after a long period at a percentage made for another heap.
func TestPaceFollowsCollections(t *testing.T) {
	const mb = 1 << 20
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		heap := heapReading{live: 218 * mb, scan: 30 * mb, cycles: 7}
		var set []int
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
			})
		}()
		synctest.Wait()
		mu.Lock()
		if !slices.Equal(set, []int{14}) {
			t.Errorf("as the pacer starts: set %v, want [14]", set)
		}
		mu.Unlock()
		step := func(name string, r heapReading, want []int) {
			t.Helper()
			mu.Lock()
			heap = r
			mu.Unlock()
			time.Sleep(paceEvery)
			synctest.Wait()
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(set, want) {
				t.Errorf("%s: set %v, want %v", name, set, want)
			}
		}
		// Figures change only with a collection: the same count is the
		// same reading.
		step("no collection", heapReading{live: 400 * mb, scan: 200 * mb, cycles: 7}, []int{14})
		step("a prune freed much", heapReading{live: 100 * mb, scan: 30 * mb, cycles: 8}, []int{14, 32})
		step("no change", heapReading{live: 100 * mb, scan: 30 * mb, cycles: 9}, []int{14, 32})
		cancel()
		<-done
	})
}
