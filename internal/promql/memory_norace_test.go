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
// others (Share), costs its Expr and one fusion, about 85 bytes with its
// pointer (a fusion that kept its label apart took 64; 101 while every
// Expr held its printed form and kind, 64 bytes, where 48 hold the rest).
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
	if per > 92 {
		t.Errorf("%.0f bytes an app's parsed expression, want at most 92", per)
	}
	runtime.KeepAlive(es)
	runtime.KeepAlive(seen)
}

// A cycle's plan is kept for as long as its apps are: a fused group of
// one value an app, 100,000 of them at the largest fleets, keeps each
// value's item in its map: about 70 bytes an app with the query's routing
// (113 while each value had a list of its own).
func TestPlanBytesPerApp(t *testing.T) {
	const apps = 20_000
	seen := make(map[string]string)
	items := make([]*Expr, apps)
	for i := range items {
		e, err := Parse(fmt.Sprintf(`demo_up{app="app-%05d"}`, i))
		if err != nil {
			t.Fatal(err)
		}
		e.Share(seen)
		items[i] = e
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	qs := PlanWide(items, 32<<10, 1000, ShardValues)
	for _, q := range qs {
		q.Labels() // its routing, made at the first answer
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(qs) != 1 || !qs[0].Wide() {
		t.Fatalf("%d queries, want one wide", len(qs))
	}
	per := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / apps
	t.Logf("%.0f bytes an app's plan", per)
	if per > 80 {
		t.Errorf("%.0f bytes an app's plan, want at most 80", per)
	}
	runtime.KeepAlive(qs)
	runtime.KeepAlive(items)
}
