//go:build !race

package history

import (
	"runtime"
	"testing"
	"time"
)

// An app's window of hours whose checks were all up costs its 232 bytes
// and nothing besides (368 when every hour kept what a down check needs);
// one with a down check in the day costs an odd part of 144 more. Heap
// figures are only meaningful without the race detector.
func TestAppDayHeapPerApp(t *testing.T) {
	const n = 20000
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for _, tt := range []struct {
		name  string
		down  bool
		limit float64
	}{
		{"all up", false, 240},
		{"a down check", true, 390},
	} {
		base := heap()
		days := make([]AppDay, n)
		for h := range 24 {
			for i := range days {
				for c := range 4 {
					days[i].Add(at.Add(time.Duration(h)*time.Hour+time.Duration(c)*time.Minute), Up, time.Millisecond)
				}
				if tt.down && h == 23 {
					days[i].Add(at.Add(time.Duration(h)*time.Hour), Down, time.Millisecond)
				}
			}
		}
		perApp := float64(heap()-base) / n
		runtime.KeepAlive(days)
		t.Logf("%s: %.0f bytes an app", tt.name, perApp)
		if perApp > tt.limit {
			t.Errorf("%s: %.0f bytes an app, want at most %.0f", tt.name, perApp, tt.limit)
		}
	}
}
