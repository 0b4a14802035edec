//go:build !race

package availmon

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

// scannedHeap is the heap the last collection scanned for pointers, after
// a collection: what internal/gcpace sizes the heap's headroom from.
func scannedHeap() uint64 {
	runtime.GC() // a second collection, for what the first freed only of its metadata (sync.Pool's victims)
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// The per-app state of the cycles keeps its pointers apart from its bulk,
// so that a collection scans a small part of it: the pacer lets the heap
// grow by half of what a collection scans, and every byte an app scanned
// at 100,000 apps is 50 KB of resident memory. The 24-hour windows (232
// bytes an app) hold one pointer each, and a slice of them was scanned
// whole, 376 bytes an app in all.
func TestCycleStateScannedPerApp(t *testing.T) {
	const apps = 20000
	m, _ := largeMonitor(t, apps, 20, 1)
	before := scannedHeap()
	st := newCycleState(m.plan)
	after := scannedHeap()
	runtime.KeepAlive(st)
	runtime.KeepAlive(m)
	perApp := float64(int64(after)-int64(before)) / apps
	t.Logf("%.0f bytes an app scanned", perApp)
	if limit := 160.0; perApp > limit {
		t.Errorf("a cycle state scans %.0f bytes an app, want at most %.0f", perApp, limit)
	}
}
