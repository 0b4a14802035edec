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
// 50 bytes an app more) once a cache age has passed without a new plan.
// Heap figures are only meaningful without the race detector.
func TestSourceKeepsLittleBesidesItsPlan(t *testing.T) {
	const n = 20000
	apps := jobApps(n)
	url, _ := upServer(t, apps, 0)
	base := liveHeap()
	src, now := agedSource(t, url)
	for range 4 {
		res, err := src.Check(context.Background(), apps)
		if err != nil {
			t.Fatal(err)
		}
		if res[n-1].Status != availmon.StatusUp {
			t.Fatalf("app %d is %s, want up", n-1, res[n-1].Status)
		}
		*now = now.Add(cacheAge + time.Second)
	}
	perApp := float64(liveHeap()-base) / n
	runtime.KeepAlive(src)
	t.Logf("a source checking %d apps holds %.0f bytes an app", n, perApp)
	const limit = 310 // 355 while the exprCache kept every expression a plan holds
	if perApp > limit {
		t.Errorf("a source holds %.0f bytes an app, want at most %d", perApp, limit)
	}
}

// Once a source has planned its apps and the backfill has planned from
// them, it holds their plan and little else at once, not a cache age
// later: the backfill takes the plan's parsed expressions, and the cache
// lets go of those a plan holds.
func TestSourceLetsGoOfPlannedExpressions(t *testing.T) {
	const n = 20000
	apps := jobApps(n)
	url, _ := upServer(t, apps, 0)
	base := liveHeap()
	src, _ := agedSource(t, url) // one age all along
	// As a Monitor validates its apps.
	for _, a := range apps {
		if err := src.ValidateApp(a); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if _, err := src.Check(context.Background(), apps); err != nil {
			t.Fatal(err)
		}
	}
	if qs := src.PlanPast(apps); len(qs) == 0 { // a backfill, done
		t.Fatal("no past queries")
	}
	perApp := float64(liveHeap()-base) / n
	runtime.KeepAlive(src)
	t.Logf("a source checking %d apps holds %.0f bytes an app", n, perApp)
	const limit = 310 // 363 while the cache kept the planned expressions for an age or two
	if perApp > limit {
		t.Errorf("a source holds %.0f bytes an app, want at most %d", perApp, limit)
	}
}

// liveHeap is the heap's live bytes after the collections that free what
// the last cycle left.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
