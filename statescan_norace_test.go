//go:build !race

package availmon

import (
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/availmon/availmon/internal/ledger"
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

// The per-app state of the cycles, and a snapshot of it, keep their
// pointers apart from their bulk, so that a collection scans a small part
// of them: the pacer lets the heap grow by half of what a collection scans,
// and every byte an app scanned at 100,000 apps is 50 KB of resident
// memory. A 24-hour window (232 bytes an app) holds one pointer, and an
// app's state (40 bytes) would hold its error text: a slice of either
// kept whole would be scanned whole, 377 bytes an app for the cycles'
// state and 64 for a snapshot.
func TestCycleStateScannedPerApp(t *testing.T) {
	const apps = 20000
	m, clock := largeMonitor(t, apps, 20, 1)
	for _, tt := range []struct {
		name  string
		make  func() any
		limit float64
	}{
		{"cycle state", func() any { return newCycleState(m.plan) }, 136},
		{"snapshot", func() any { return m.state.snapshot(m.plan, 1, clock.Now()) }, 8},
		// An entry of the ledger is one small object per app, scanned
		// whole: 208 bytes since what few records have is behind a
		// pointer (288 before), and the name map's share.
		{"ledger", func() any {
			l := ledger.New(ledger.Options{})
			l.SetLayout(clock.Now(), layoutOf(m.plan), nil)
			return l
		}, 270},
	} {
		before := scannedHeap()
		v := tt.make()
		after := scannedHeap()
		runtime.KeepAlive(v)
		perApp := float64(int64(after)-int64(before)) / apps
		t.Logf("%s: %.0f bytes an app scanned", tt.name, perApp)
		if perApp > tt.limit {
			t.Errorf("a %s scans %.0f bytes an app, want at most %.0f", tt.name, perApp, tt.limit)
		}
	}
	runtime.KeepAlive(m)
}

// The event log's status updates name their apps by index in the plan's
// apps and hold no pointer: a log of every app's first check is not
// scanned (124 bytes an app when an entry held its names, 64 bytes each
// in a ring grown past them).
func TestEventLogScannedPerApp(t *testing.T) {
	const apps = 20000
	m, _ := largeMonitor(t, apps, 20, 1)
	before := scannedHeap()
	m.events = newEventLog(1)
	after := scannedHeap()
	perApp := float64(int64(before)-int64(after)) / apps
	t.Logf("event log: %.0f bytes an app scanned", perApp)
	if perApp > 8 {
		t.Errorf("the event log scans %.0f bytes an app, want at most 8", perApp)
	}
	runtime.KeepAlive(m)
}
