//go:build !race

package ledger

import (
	"fmt"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/availmon/availmon/timeline"
)

// A ledger costs about 400 bytes an app besides what its records hold: the
// entry (240), its name in the map, the layout's and the roster's slices,
// and a Book's view (72, in chunks the Books of successive cycles share).
func TestBytesPerApp(t *testing.T) {
	const apps = 10_000
	lay := Layout{Locations: []string{"a", "b"}}
	for i := range apps {
		lay.Apps = append(lay.Apps, AppRef{Name: fmt.Sprintf("app-%05d", i), Location: lay.Locations[i%2]})
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	l := New(Options{})
	l.SetLayout(t0, lay, nil)
	for k := range 3 {
		at := t0.Add(time.Duration(k) * iv)
		for i := range apps {
			l.Check(i, at, timeline.Up, hold, false)
		}
		l.EndCycle(at, hold, nil, nil)
	}
	b := l.Book(t0)
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(after.HeapAlloc-before.HeapAlloc) / apps
	t.Logf("%.0f bytes an app, a Book included (%d bytes of views)", per, b.Len(App)*int(sizeofView))
	if per > 415 {
		t.Errorf("%.0f bytes an app, want at most 415", per)
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
	lay := Layout{Locations: []string{"a", "b"}}
	for i := range apps {
		lay.Apps = append(lay.Apps, AppRef{Name: fmt.Sprintf("app-%05d", i), Location: lay.Locations[i%2]})
	}
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
// must fit the allocator's 240-byte size class (the entity's kind in a
// field of its own made it 248, in 256).
func TestEntryBytes(t *testing.T) {
	if n := unsafe.Sizeof(entry{}); n > 240 {
		t.Errorf("an entry takes %d bytes, want at most 240", n)
	}
}
