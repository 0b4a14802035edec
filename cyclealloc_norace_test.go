//go:build !race

package availmon

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// maxCycleBytesPerApp bounds what a steady cycle allocates per app, the
// Source's own results aside: the snapshot's view of the app (48 bytes),
// the odd hours of an app not up (144 bytes, a fifth of these apps), and a
// share of what a cycle makes once; 82 bytes when written. Garbage a cycle
// makes is paid for in collections, which at 10,000 apps cost more CPU
// than the cycle's own work under the binary's GC pacer: a copy of every
// app (112 bytes) or of every result (40) made again each cycle fails this.
const maxCycleBytesPerApp = 100

// A cycle of 10,000 apps allocates little more than its snapshot.
func TestCycleAllocationsPerApp(t *testing.T) {
	const n = 10_000
	m, clock := largeMonitor(t, n, 10, 3)
	const cycles = 5
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range cycles {
		if err := m.Scrape(context.Background()); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Second)
	}
	runtime.ReadMemStats(&after)
	const sourceBytes = 40 // benchSource's results, one Result an app
	perApp := float64(after.TotalAlloc-before.TotalAlloc)/cycles/n - sourceBytes
	t.Logf("a cycle of %d apps allocated %.1f bytes an app besides its source's results", n, perApp)
	if perApp > maxCycleBytesPerApp {
		t.Errorf("a cycle allocated %.1f bytes an app besides its source's results, want at most %d", perApp, maxCycleBytesPerApp)
	}
}
