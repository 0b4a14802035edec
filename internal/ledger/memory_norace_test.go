//go:build !race

package ledger

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
	"unsafe"

	"github.com/availmon/availmon/timeline"
)

// A ledger costs about 370 bytes an app besides what its records hold: the
// entry (208), its name in the map, the layout's and the roster's slices,
// and a Book's view (72, in chunks the Books of successive cycles share).
func TestBytesPerApp(t *testing.T) {
	const apps = 10_000
	lay := fleetLayout(apps)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	l := upLedger(lay)
	b := l.Book(t0)
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(after.HeapAlloc-before.HeapAlloc) / apps
	t.Logf("%.0f bytes an app, a Book included (%d bytes of views)", per, b.Len(App)*int(sizeofView))
	if per > 390 {
		t.Errorf("%.0f bytes an app, want at most 390", per)
	}
	runtime.KeepAlive(l)
	runtime.KeepAlive(b)
}

var sizeofView = unsafe.Sizeof(timeline.View{})

// A Book is made every cycle: it must cost memory for the records that
// changed, not for every entity (a view each, 72 bytes, would be 7 MB a
// cycle at 100,000 apps). A cycle in which 1% of the apps change state
// costs a chunk of views for each of them and a pointer per chunk for the
// rest.
func TestBookBytesPerCycle(t *testing.T) {
	const apps = 10_000
	lay := fleetLayout(apps)
	l := New(Options{})
	l.SetLayout(t0, lay, nil)
	k := 0
	// cycle feeds a cycle and returns its Book and the bytes the Book
	// alone allocated.
	cycle := func(state func(k, i int) timeline.State) (*Book, uint64) {
		k++
		at := t0.Add(time.Duration(k) * iv)
		for i := range apps {
			l.Check(i, at, state(k, i), hold, false)
		}
		l.EndCycle(at, hold, nil, nil)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b := l.Book(at)
		runtime.ReadMemStats(&after)
		return b, after.TotalAlloc - before.TotalAlloc
	}
	// Every 13th app's state is unknown (its backend cannot tell), every
	// 7th is down: steady all the same.
	steady := func(k, i int) timeline.State {
		switch {
		case i%13 == 0:
			return timeline.Unknown
		case i%7 == 0:
			return timeline.Down
		}
		return timeline.Up
	}
	for range 3 {
		cycle(steady)
	}
	for _, tt := range []struct {
		name  string
		state func(k, i int) timeline.State
		most  float64 // bytes an app
	}{
		{"steady", steady, 2},
		{"1% change", func(k, i int) timeline.State {
			if i%100 == k%100 {
				return timeline.Down
			}
			return steady(k, i)
		}, 20},
	} {
		const cycles = 10
		var (
			books  [cycles]*Book
			booked uint64
		)
		for c := range books {
			var n uint64
			books[c], n = cycle(tt.state)
			booked += n
		}
		per := float64(booked) / cycles / apps
		t.Logf("%s: %.1f bytes an app a Book", tt.name, per)
		if per > tt.most {
			t.Errorf("%s: %.1f bytes an app a Book, want at most %.0f", tt.name, per, tt.most)
		}
		runtime.KeepAlive(books)
	}
}

// An entry is one per app and location, 100,000 at the largest fleets: it
// must fit the allocator's 208-byte size class (with what few records have
// inline in its record it took 264, in 288).
func TestEntryBytes(t *testing.T) {
	if n := unsafe.Sizeof(entry{}); n > 208 {
		t.Errorf("an entry takes %d bytes, want at most 208", n)
	}
}

// A collection scans an entry whole, as it does every small object that
// holds a pointer, and the pacer sizes the heap's headroom from what it
// scans: an entry's record keeps what few records have (an index, a
// flapping day being written, maintenance ahead, a removal) behind a
// pointer, so that an entry fits the 208-byte size class (264 bytes, in
// 288, with all of it inline). Besides the entry: the name map's share and
// the current layout's pointer.
func TestScannedBytesPerApp(t *testing.T) {
	const apps = 20_000
	lay := fleetLayout(apps)
	before := scannedHeap()
	l := upLedger(lay)
	after := scannedHeap()
	runtime.KeepAlive(l)
	per := float64(int64(after)-int64(before)) / apps
	t.Logf("%.0f bytes an app scanned", per)
	if per > 270 {
		t.Errorf("a ledger scans %.0f bytes an app, want at most 270", per)
	}
}

// scannedHeap is the heap the last collection scanned for pointers, after
// a collection.
func scannedHeap() uint64 {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// fleetLayout is a layout of apps spread over two locations.
func fleetLayout(apps int) Layout {
	lay := Layout{Locations: []string{"a", "b"}}
	for i := range apps {
		lay.Apps = append(lay.Apps, AppRef{Name: fmt.Sprintf("app-%05d", i), Location: lay.Locations[i%2]})
	}
	return lay
}

// upLedger is a ledger of lay after three cycles in which every app was up.
func upLedger(lay Layout) *Ledger {
	l := New(Options{})
	l.SetLayout(t0, lay, nil)
	for k := range 3 {
		at := t0.Add(time.Duration(k) * iv)
		for i := range lay.Apps {
			l.Check(i, at, timeline.Up, hold, false)
		}
		l.EndCycle(at, hold, nil, nil)
	}
	return l
}
