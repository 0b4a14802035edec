//go:build !race

package promql

import (
	"fmt"
	"runtime"
	"testing"
	"unsafe"
)

// A source keeps every app's parsed expression, 100,000 of them at the
// largest fleets: an app's own selector, its fusion key shared with the
// others (Share), costs its Expr and one fusion, about 100 bytes with its pointer (a fusion
// that kept its label apart took 64).
func TestParsedBytesPerApp(t *testing.T) {
	if n := unsafe.Sizeof(fusion{}); n > 48 {
		t.Errorf("a fusion takes %d bytes, want at most 48", n)
	}
	const apps = 10_000
	texts := make([]string, apps)
	for i := range texts {
		texts[i] = fmt.Sprintf(`demo_up{app="app-%05d"}`, i)
	}
	seen := make(map[string]string)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	es := make([]*Expr, apps)
	for i, text := range texts {
		e, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		e.Share(seen)
		es[i] = e
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / apps
	t.Logf("%.0f bytes an app's parsed expression, with its pointer", per)
	if per > 110 {
		t.Errorf("%.0f bytes an app's parsed expression, want at most 110", per)
	}
	runtime.KeepAlive(es)
	runtime.KeepAlive(seen)
}
