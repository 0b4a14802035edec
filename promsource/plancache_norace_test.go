//go:build !race

package promsource

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/availmon/availmon"
)

// A source that checks the same apps cycle after cycle holds their plan
// and little else: a cycle finds its plan by the expressions' texts, so
// the parsed expressions are not also kept in the exprCache's map (about
// 50 bytes an app more, and all of it scanned by every collection), from
// the first cycle on as after a cache age without a new plan.
// Heap figures are only meaningful without the race detector.
func TestSourceKeepsLittleBesidesItsPlan(t *testing.T) {
	for _, tt := range []struct {
		name  string
		ages  bool
		limit float64 // 355 while the exprCache kept every expression a plan holds
	}{
		{"after cache ages", true, 310},
		{"from the first cycle", false, 310},
	} {
		t.Run(tt.name, func(t *testing.T) {
			perApp := sourceHeldPerApp(t, tt.ages)
			t.Logf("a source holds %.0f bytes an app", perApp)
			if perApp > tt.limit {
				t.Errorf("a source holds %.0f bytes an app, want at most %.0f", perApp, tt.limit)
			}
		})
	}
}

// sourceHeldPerApp is the heap a source holds per app after four cycles of
// 20,000 apps, a cache age apart when ages is set.
func sourceHeldPerApp(t *testing.T, ages bool) float64 {
	const n = 20000
	apps := jobApps(n)
	url, _ := upServer(t, apps, 0)
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	base := heap()
	src, err := New(Options{Name: "main", URL: url})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	src.exprs.age.now = func() time.Time { return now }
	src.plans.age.now = src.exprs.age.now
	for range 4 {
		res, err := src.Check(context.Background(), apps)
		if err != nil {
			t.Fatal(err)
		}
		if res[n-1].Status != availmon.StatusUp {
			t.Fatalf("app %d is %s, want up", n-1, res[n-1].Status)
		}
		if ages {
			now = now.Add(cacheAge + time.Second)
		}
	}
	perApp := float64(heap()-base) / n
	runtime.KeepAlive(src)
	return perApp
}
