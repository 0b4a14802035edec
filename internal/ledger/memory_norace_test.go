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
// and a Book's view (72; a Book is made every cycle, and two may be live).
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
	t.Logf("%.0f bytes an app, a Book included (%d bytes of views)", per, len(b.views[App])*int(sizeofView))
	if per > 450 {
		t.Errorf("%.0f bytes an app, want at most 450", per)
	}
	runtime.KeepAlive(l)
	runtime.KeepAlive(b)
}

var sizeofView = unsafe.Sizeof(timeline.View{})
