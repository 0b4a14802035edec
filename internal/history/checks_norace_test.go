//go:build !race

package history

import (
	"runtime"
	"testing"
	"unsafe"
)

// A full history of 100 checks a second apart, answered in 20 to 80 ms,
// takes about half the 1,256 bytes a ring of 12-byte entries and its
// header would (and an app failing with a new error text every check well
// under the 5,371 a table of texts grown by doubling would), and adding a
// check to it allocates nothing: at thousands of apps the histories are
// the largest structure of the heap.
func TestHistoryBytes(t *testing.T) {
	for _, tt := range []struct {
		name     string
		distinct bool
		limit    float64
	}{
		{"up", false, 560},
		{"distinct errors", true, 3500},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const apps, size = 4000, 100
			es := benchChecks(size, tt.distinct) // texts shared by every app: not counted
			live, v := liveHeap(t, func() any {
				hs := make([]*Checks, apps)
				for i := range hs {
					hs[i] = new(Checks)
					for _, e := range es {
						hs[i].Add(e, size)
					}
				}
				return hs
			})
			hs := v.([]*Checks)
			perApp := live / apps
			h := hs[0]
			counted := int(unsafe.Sizeof(*h)) + cap(h.buf) + cap(h.texts())*int(unsafe.Sizeof(errText{}))
			t.Logf("%.0f bytes of live heap per app; header, buffer and texts' table %d bytes (%d of checks, %.1f a check)",
				perApp, counted, len(h.buf)-int(h.head), float64(len(h.buf)-int(h.head))/size)
			if perApp > tt.limit {
				t.Errorf("a full history of %d checks takes %.0f bytes, want at most %.0f", size, perApp, tt.limit)
			}
			at := es[size-1].At
			allocs := testing.AllocsPerRun(1000, func() {
				at += 1e9
				e := es[int(at/1e9)%size]
				e.At = at
				h.Add(e, size)
			})
			if allocs != 0 {
				t.Errorf("adding to a full history allocates %.1f times", allocs)
			}
			runtime.KeepAlive(hs)
		})
	}
}

// liveHeap is the heap that what build returns keeps alive, in bytes, and
// the last value built. The goroutines of other tests (servers, monitors
// still stopping) allocate and free at the same time, which can move the
// figure either way by a few megabytes: the least of three tries that saw
// growth is kept.
func liveHeap(t *testing.T, build func() any) (float64, any) {
	t.Helper()
	best := int64(-1)
	var v any
	for range 3 {
		v = nil // the last try's value is not counted in this one's
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		v = build()
		runtime.GC()
		runtime.ReadMemStats(&after)
		if d := int64(after.HeapAlloc) - int64(before.HeapAlloc); d > 0 && (best < 0 || d < best) {
			best = d
		}
	}
	if best < 0 {
		t.Fatal("the heap never grew over three tries")
	}
	return float64(best), v
}

// An app's history header is one per app, 100,000 at the largest fleets:
// it must fit the allocator's 96-byte size class (it took 128 while the
// error texts' table was a slice in it and the offsets were ints).
func TestHistoryHeaderBytes(t *testing.T) {
	if n := unsafe.Sizeof(Checks{}); n > 96 {
		t.Errorf("a history's header takes %d bytes, want at most 96", n)
	}
}
