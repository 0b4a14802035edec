//go:build !race

package availmon

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/availmon/availmon/internal/memstore"
)

// What a poll of /health and a 304 cost through the whole handler, in
// allocations: chi's copy of the request with its route context, the
// status-recording writer and the request ID (its text and header value)
// account for five, so the answer itself may allocate at most four. Before the ETag and header
// values were kept per body and meta, and the request ID in the response's
// header only, each took 16 (BenchmarkHealth, BenchmarkLocationsNotModified).
// /api/status, encoded through encoding/json on every request, took 13
// before its answer was kept while what it says holds.
func TestPollAllocations(t *testing.T) {
	tm := newTestMonitor(t)
	tm.startRun(t)
	// /api/status with a store, whose storage member it reports.
	stored := newTestMonitor(t, func(o *Options) { o.Store = memstore.New(nil) })
	stored.startRun(t)
	large, _ := largeMonitor(t, 1000, 10, 2)
	h := large.Handler()
	notModified := httptest.NewRequest(http.MethodGet, "/api/locations", nil)
	notModified.Header.Set("If-None-Match", etagOf(t, h, "/api/locations"))
	for _, tt := range []struct {
		name   string
		h      http.Handler
		req    *http.Request
		status int
	}{
		{"/health", tm.h, httptest.NewRequest(http.MethodGet, "/health", nil), http.StatusOK},
		{"/api/locations, 304", h, notModified, http.StatusNotModified},
		{"/api/status", stored.h, httptest.NewRequest(http.MethodGet, "/api/status", nil), http.StatusOK},
	} {
		w := &discardWriter{h: http.Header{}}
		allocs := testing.AllocsPerRun(200, func() {
			clear(w.h)
			tt.h.ServeHTTP(w, tt.req)
		})
		if w.code != tt.status {
			t.Fatalf("%s: status %d, want %d", tt.name, w.code, tt.status)
		}
		t.Logf("%s: %.1f allocations a request", tt.name, allocs)
		if allocs > 9 {
			t.Errorf("%s: %.1f allocations a request, want at most 9", tt.name, allocs)
		}
	}
}
