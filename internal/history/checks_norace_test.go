//go:build !race

package history

import (
	"runtime"
	"testing"
	"time"
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
						hs[i].Add(e, size, nil)
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
				h.Add(e, size, nil)
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

// The collector scans each app's header up to its last pointer: with the
// pointers first, 40 bytes of the 96 (80 while the error table's pointer
// came after the times).
func TestHistoryHeaderScannedBytes(t *testing.T) {
	var h Checks
	if n := unsafe.Offsetof(h.errs) + unsafe.Sizeof(h.errs); n > 40 {
		t.Errorf("the collector scans %d bytes of a history's header, want at most 40", n)
	}
}

// A Prometheus source answers thousands of apps with one query, whose
// round trip is each app's response time: 10,000 apps' full histories of
// checks whose round trip of 300 ms they share take about 2 bytes a check
// with the table (each would take 5 with the response time inline: 4 bytes
// of it past 131 ms, and 1 of time), and a cycle that adds to them allocates nothing.
func TestSharedHistoryBytes(t *testing.T) {
	const apps, size = 10_000, 100
	es := benchChecks(2*size, false)
	for i := range es {
		es[i].RT = 300 * time.Millisecond
	}
	var rts *SharedRTs
	live, v := liveHeap(t, func() any {
		rts = new(SharedRTs)
		hs := make([]Checks, apps)
		for _, e := range es {
			for i := range hs {
				hs[i].AddShared(e, size, rts)
			}
		}
		return hs
	})
	hs := v.([]Checks)
	checks := 0
	for i := range hs {
		checks += len(hs[i].buf) - int(hs[i].head)
	}
	perCheck := float64(checks) / (apps * size)
	perApp := live / apps
	t.Logf("%.2f bytes a check in the histories; %.0f bytes of live heap per app (its header of %d included), %d shared entries",
		perCheck, perApp, unsafe.Sizeof(Checks{}), rts.Len())
	if perCheck > 2.5 {
		t.Errorf("a check takes %.2f bytes, want at most 2.5", perCheck)
	}
	if limit := float64(unsafe.Sizeof(Checks{})) + 2.5*size*17/16 + 16; perApp > limit {
		t.Errorf("a full history takes %.0f bytes of live heap, want at most %.0f", perApp, limit)
	}
	at := es[len(es)-1].At
	allocs := testing.AllocsPerRun(10, func() {
		at += 1e9
		for i := range hs {
			hs[i].AddShared(Check{At: at, RT: 300 * time.Millisecond}, size, rts)
		}
	})
	if allocs != 0 {
		t.Errorf("a cycle that adds to %d full histories allocates %.1f times", apps, allocs)
	}
	runtime.KeepAlive(hs)
}
