//go:build !race

package promsource

import (
	"context"
	"runtime"
	"testing"

	"github.com/availmon/availmon"
)

// A cycle's answers are read into buffers kept from the cycle before, not
// into new ones: at 10,000 apps they are a megabyte a cycle of garbage, and
// every collection it causes marks the whole heap. So what a Check
// allocates does not grow with its answer's size: the same apps, asked the
// same queries, answered with series whose labels are longer, allocate
// about the same. Allocation figures are only meaningful without the race
// detector.
func TestPlannedCallsReuseAnswerBuffers(t *testing.T) {
	const n = 4000
	apps := jobApps(n)
	small, smallLen := allocPerCheck(t, apps, 0)
	large, largeLen := allocPerCheck(t, apps, 400)
	t.Logf("a Check of %d apps allocated %.0f bytes with a %d-byte answer, %.0f with a %d-byte one", n, small, smallLen, large, largeLen)
	if grew, limit := large-small, float64(largeLen-smallLen)/4; grew > limit {
		t.Errorf("a Check allocated %.0f bytes more for an answer %d bytes larger, want at most %.0f: its answer's buffer is made anew",
			grew, largeLen-smallLen, limit)
	}
}

// allocPerCheck is the bytes a Check of apps allocates once warm, against a
// server whose answer gives each app's series a label of pad bytes, and
// that answer's size.
func allocPerCheck(t *testing.T, apps []availmon.App, pad int) (float64, int) {
	url, bodyLen := upServer(t, apps, pad)
	src, err := New(Options{Name: "main", URL: url})
	if err != nil {
		t.Fatal(err)
	}
	check := func() {
		res, err := src.Check(context.Background(), apps)
		if err != nil {
			t.Fatal(err)
		}
		if res[len(apps)-1].Status != availmon.StatusUp {
			t.Fatalf("app %d is %s, want up", len(apps)-1, res[len(apps)-1].Status)
		}
	}
	check()
	check()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const calls = 5
	for range calls {
		check()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / calls, bodyLen
}

// upServer serves, to every query, an answer in which each of apps is up,
// its series carrying a label of pad bytes; it returns the server's URL
// and the answer's size.
func upServer(t testing.TB, apps []availmon.App, pad int) (string, int) {
	return answerServer(t, apps, pad, func(int) int { return 1 })
}
