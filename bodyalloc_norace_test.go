//go:build !race

package availmon

import (
	"compress/flate"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/availmon/availmon/internal/report"
	"time"
)

// buildBytes is the heap allocated by one request of target made right
// after a cycle, which makes its answer anew, and the answer's length.
func buildBytes(t *testing.T, m *Monitor, clock *fakeClock, target string, header http.Header) (alloc uint64, n int) {
	t.Helper()
	h := m.Handler()
	clock.Advance(time.Minute)
	if err := m.Scrape(t.Context()); err != nil {
		t.Fatal(err)
	}
	w := &discardWriter{h: http.Header{}}
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header = header
	alloc = allocated(func() { h.ServeHTTP(w, req) })
	if w.code != http.StatusOK {
		t.Fatalf("GET %s: %d", target, w.code)
	}
	return alloc, w.n
}

// A report of this month (remade every snapshot, the month not over) is
// written into one buffer sized ahead: grown as it went, its JSON at
// 10,000 apps allocated 4 times its size besides the rows, and at 100,000
// apps the last two copies of 30 MB were alive together at the end of
// each build.
func TestReportBuildAllocatesItsSize(t *testing.T) {
	m, clock := largeMonitor(t, 10_000, 100, 2)
	for _, format := range []report.Format{report.JSON, report.CSV} {
		target := "/api/reports/2026-11?format=" + format.String()
		alloc, n := buildBytes(t, m, clock, target, http.Header{})
		q := monthQuery(t, format)
		rows := allocated(func() { // what making the rows allocates
			rep := report.Make(m.snap.Load().book, q)
			for n := range rep.Len() {
				_ = rep.Row(n)
			}
		})
		ratio := float64(alloc-min(rows, alloc)) / float64(n)
		t.Logf("%s: %d bytes allocated besides the rows' %d, for an answer of %d (%.2fx)", target, alloc-rows, rows, n, ratio)
		if ratio > 1.6 {
			t.Errorf("%s: %.2fx its answer's size allocated besides the rows, want at most 1.6x", target, ratio)
		}
	}
}

// A report makes each row as it writes it: the rows whole are 160 bytes
// an app (16 MB at 100,000 apps), which a report's build held besides its
// answer until the last was written.
func TestReportMakesRowsAsItWrites(t *testing.T) {
	m, _ := largeMonitor(t, 10_000, 100, 2)
	var rep *report.Report
	made := allocated(func() { rep = report.Make(m.snap.Load().book, monthQuery(t, report.JSON)) })
	if per := float64(made) / float64(rep.Len()); per > 24 {
		t.Errorf("Make allocated %d bytes for %d rows (%.0f a row), want at most 24 a row", made, rep.Len(), per)
	}
}

// allocated is the heap f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// /api/apps is encoded for each snapshot straight into what is kept: the
// plain answer into its segments, with no buffer of its size besides, and
// for a gzip client the compressed answer alone, never the plain one
// whole (which took 2.5 MB at 10,000 apps, twice the gzip request's
// allocations now).
func TestAppsBuildAllocatesWhatItKeeps(t *testing.T) {
	m, clock := largeMonitor(t, 10_000, 100, 2)
	plainAlloc, plain := buildBytes(t, m, clock, "/api/apps", http.Header{})
	gzAlloc, gz := buildBytes(t, m, clock, "/api/apps", http.Header{"Accept-Encoding": {"gzip"}})
	// The compressor's state, some 1.2 MB whatever the answer's size.
	flateState := allocated(func() { flate.NewWriter(io.Discard, 2) }) //nolint:errcheck
	t.Logf("plain: %d bytes allocated for an answer of %d; gzip: %d (%d of them the compressor's) for %d",
		plainAlloc, plain, gzAlloc, flateState, gz)
	if r := float64(plainAlloc) / float64(plain); r > 1.4 {
		t.Errorf("plain: %.2fx the answer allocated, want at most 1.4x", r)
	}
	if r := float64(gzAlloc-min(flateState, gzAlloc)) / float64(plain); r > 0.5 {
		t.Errorf("gzip: %.2fx the plain answer allocated besides the compressor, want at most 0.5x: the plain answer is made whole", r)
	}
}
