//go:build !race

package availmon

import (
	"runtime"
	"testing"

	"github.com/availmon/availmon/internal/report"
)

// largestAllocation is the size of the largest object f allocates (per
// allocating stack, the mean of its objects: f's large answers come each
// from a stack of their own).
func largestAllocation(f func()) int64 {
	keep := runtime.MemProfileRate
	defer func() { runtime.MemProfileRate = keep }()
	runtime.MemProfileRate = 1
	// The rate applies from the next sample taken, which is the next
	// allocation at the old rate's distance: one that large takes it.
	for range 4 {
		warmup = make([]byte, 8<<20)
	}
	warmup = nil
	before := memProfile()
	f()
	runtime.MemProfileRate = keep
	var largest int64
	for stack, rec := range memProfile() {
		old := before[stack]
		if n := rec.AllocObjects - old.AllocObjects; n > 0 {
			largest = max(largest, (rec.AllocBytes-old.AllocBytes)/n)
		}
	}
	return largest
}

var warmup []byte

// memProfile is the heap profile's records by stack, as of now: the
// profile is published a collection or two late.
func memProfile() map[[32]uintptr]runtime.MemProfileRecord {
	for range 3 {
		runtime.GC()
	}
	n, _ := runtime.MemProfile(nil, true)
	recs := make([]runtime.MemProfileRecord, n+64)
	for ok := false; !ok; {
		if n, ok = runtime.MemProfile(recs, true); !ok {
			recs = make([]runtime.MemProfileRecord, n+64)
		}
	}
	byStack := make(map[[32]uintptr]runtime.MemProfileRecord, n)
	for _, r := range recs[:n] {
		old := byStack[r.Stack0]
		old.Stack0 = r.Stack0
		old.AllocBytes += r.AllocBytes
		old.AllocObjects += r.AllocObjects
		byStack[r.Stack0] = old
	}
	return byStack
}

// maxPiece bounds any one allocation of an answer kept in segments: a
// segment (cachedbody.DefaultSegmentSize) and a little for the buffer it
// is written through.
const maxPiece = 320 << 10

// A report (32 MB of JSON and 12 MB of CSV at 100,000 apps) is kept in
// segments: in one piece, it needs as many contiguous bytes, which none of
// the holes the snapshots' answers leave in the heap fits, so each one
// made took fresh pages that stayed resident after it was freed.
func TestReportAnswerInSegments(t *testing.T) {
	m, _ := largeMonitor(t, 10_000, 100, 2)
	s := m.snap.Load()
	for _, f := range []report.Format{report.JSON, report.CSV} {
		q := monthQuery(t, f)
		rep := report.Make(s.book, q)
		var a availAnswer
		largest := largestAllocation(func() { a = reportAnswer(rep, f, s.made) })
		checkSegmented(t, f.String(), a, largest)
	}
}

// /api/availability's answer (24 MB at 100,000 apps over 90 days by app)
// is made anew for each snapshot, and a slow client holds the snapshot's:
// kept in segments, it fits the heap's holes, and a reader holds only the
// part it has yet to send.
func TestAvailabilityAnswerInSegments(t *testing.T) {
	m, _ := largeMonitor(t, 10_000, 100, 2)
	s := m.snap.Load()
	for _, target := range []string{"window=90d&by=app", "window=30d&by=app&step=1d"} {
		q, err := m.parseAvailQuery(target, s)
		if err != nil {
			t.Fatal(err)
		}
		var a availAnswer
		largest := largestAllocation(func() { a = s.availabilityAnswer(q) })
		checkSegmented(t, target, a, largest)
	}
}

// checkSegmented fails the test unless the answer named name, whose
// making allocated at most largest bytes at once, is in several segments
// and none of its allocations was larger than a segment.
func checkSegmented(t *testing.T, name string, a availAnswer, largest int64) {
	t.Helper()
	n := a.body.Len()
	t.Logf("%s: answer of %d bytes, largest allocation %d", name, n, largest)
	if n < 3*maxPiece {
		t.Fatalf("%s: the answer is %d bytes, want several segments", name, n)
	}
	if largest > maxPiece {
		t.Errorf("%s: an allocation of %d bytes for an answer of %d, want none over %d (segments)", name, largest, n, maxPiece)
	}
}
