//go:build !race

package availmon

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/prometheus/common/expfmt"
)

// Allocation figures are measured without the race detector only: under
// -race sync.Pool drops items at random, so the same request allocates a
// little more now and then (TestStatusAndLocationNotPerApp failed 1 run in
// 30 with "35 allocs vs 32").

// bytesPerRequest is the heap allocated per request, once the snapshot's
// encodings are made.
func bytesPerRequest(t *testing.T, h http.Handler, target string) float64 {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	w := &discardWriter{h: http.Header{}}
	h.ServeHTTP(w, req)
	if w.code != http.StatusOK {
		t.Fatalf("GET %s: %d", target, w.code)
	}
	const n = 200
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		h.ServeHTTP(w, req)
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / n
}

// /api/status and /api/locations/{name} cost the same per request with 100
// apps as with 10,000 (the location has 100 apps both times): they read
// figures made once per snapshot instead of walking every app.
func TestStatusAndLocationNotPerApp(t *testing.T) {
	small, _ := largeMonitor(t, 100, 1, 2)
	large, _ := largeMonitor(t, 10_000, 100, 2)
	hs, hl := small.Handler(), large.Handler()
	for _, tt := range []struct{ small, large string }{
		{"/api/status", "/api/status"},
		{"/api/locations/location-000", "/api/locations/location-000"},
	} {
		s := bytesPerRequest(t, hs, tt.small)
		l := bytesPerRequest(t, hl, tt.large)
		allocS := testing.AllocsPerRun(100, func() {
			hs.ServeHTTP(&discardWriter{h: http.Header{}}, httptest.NewRequest(http.MethodGet, tt.small, nil))
		})
		allocL := testing.AllocsPerRun(100, func() {
			hl.ServeHTTP(&discardWriter{h: http.Header{}}, httptest.NewRequest(http.MethodGet, tt.large, nil))
		})
		t.Logf("%s: %.0f B and %.0f allocs per request with 100 apps, %.0f B and %.0f allocs with 10,000", tt.large, s, allocS, l, allocL)
		if l > 1.5*s+1024 || allocL > allocS+2 {
			t.Errorf("%s: %.0f B / %.0f allocs per request with 10,000 apps against %.0f B / %.0f allocs with 100: it grows with the app count",
				tt.large, l, allocL, s, allocS)
		}
	}
}

// A save allocates its encoding and nothing else: no copy of every app's
// history (which at 10,000 apps was a 56 MB arena per save, the largest
// burst of the binary's heap), and a buffer sized from the last save so
// that it does not grow by doubling.
func TestSaveAllocatesOnlyItsEncoding(t *testing.T) {
	m, _ := largeMonitor(t, 1000, 10, 100)
	sv := &saver{m: m}
	first, _ := sv.encode()
	n := len(first)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	data, _ := sv.encode()
	runtime.ReadMemStats(&after)
	if len(data) != n {
		t.Fatalf("two encodings of the same state: %d and %d bytes", n, len(data))
	}
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(n+n/8+64<<10); got > limit {
		t.Errorf("a save of %d bytes allocated %d bytes, want at most %d", n, got, limit)
	}
}

// The snapshot part of /metrics allocates about its encoding, not objects
// per app: availmon_up made as const metrics and gathered through a
// registry would cost 900 bytes and 18 allocations an app every snapshot.
func TestMetricsBodyNotObjectsPerApp(t *testing.T) {
	const apps = 5000
	m, _ := largeMonitor(t, apps, 50, 1)
	cur := m.snap.Load()
	prom := cur.promSnapshot()
	for _, f := range []expfmt.Format{expfmt.FmtText, expfmt.FmtOpenMetrics_1_0_0} {
		var last atomic.Int64
		encode := func() int {
			body, err := encodeMetrics(m.exp, prom, f, &last)
			if err != nil {
				t.Fatal(err)
			}
			return len(body.Head())
		}
		n := encode() // sizes the next buffer
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		encode()
		runtime.ReadMemStats(&after)
		heap, allocs := after.TotalAlloc-before.TotalAlloc, after.Mallocs-before.Mallocs
		t.Logf("%s: %d bytes and %d allocations for a body of %d bytes", f, heap, allocs, n)
		if limit := uint64(n + n/8 + 8*apps + 128<<10); heap > limit || allocs > 2000 {
			t.Errorf("%s: %d bytes and %d allocations for a body of %d bytes, want at most %d bytes and 2000 allocations",
				f, heap, allocs, n, limit)
		}
	}
}

// A save into a StreamSaver (the file store) allocates a small fraction of
// the state it writes: the state is encoded into the store's writer, never
// into a buffer of its size, which at 10,000 apps with 400 days of record
// added 170 MB to the heap at every save.
func TestStreamedSaveAllocatesLittle(t *testing.T) {
	m, _ := largeMonitor(t, 3000, 30, 100)
	n := len(m.encodeLive(0))
	m.persist.store = &streamStore{w: io.Discard}
	sv := &saver{m: m}
	if err := sv.save(t.Context()); err != nil { // the cut's slices, kept for the next
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := sv.save(t.Context()); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("a streamed save of %d bytes allocated %d bytes", n, got)
	if limit := uint64(n / 8); got > limit {
		t.Errorf("a streamed save of %d bytes allocated %d bytes, want at most %d", n, got, limit)
	}
}
