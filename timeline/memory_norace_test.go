//go:build !race

package timeline

import (
	"runtime"
	"testing"
)

// Memory is measured without the race detector, which changes the heap.

// heapOf returns the bytes of heap that build's result keeps.
func heapOf(build func() []Record) (int64, []Record) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rs := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc), rs
}

// 10,000 apps with 400 days of history in which 1% have one outage a day
// cost at most 5 MB: most apps are one segment.
func TestMemoryTypicalFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 10,000 records of 400 days")
	}
	n, rs := heapOf(func() []Record { return fleet(10_000, 100, 400, 1) })
	t.Logf("10,000 apps, 400 days, 1%% with an outage a day: %.2f MB (%d B an app)", float64(n)/1e6, n/10_000)
	if n > 5e6 {
		t.Errorf("%.2f MB, want at most 5 MB", float64(n)/1e6)
	}
	runtime.KeepAlive(rs)
}

// Every app with 10 outages every day for 400 days stays under 200 MB at
// 10,000 apps (measured on 1,000).
func TestMemoryWorstFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 1,000 records of 400 days with 10 outages a day")
	}
	n, rs := heapOf(func() []Record { return fleet(1000, 1000, 400, 10) })
	per := n / 1000
	t.Logf("1,000 apps, 400 days, 10 outages a day: %.2f MB, %d B an app, %.1f MB at 10,000 apps", float64(n)/1e6, per, float64(per)*10_000/1e6)
	if per*10_000 > 200e6 {
		t.Errorf("%d B an app: %.1f MB at 10,000 apps, want under 200 MB", per, float64(per)*10_000/1e6)
	}
	runtime.KeepAlive(rs)
}

// A flapping day costs its buckets whatever happens in it: a record that
// flaps every minute of 400 days stays bounded.
func TestMemoryFlappingRecord(t *testing.T) {
	n, rs := heapOf(func() []Record {
		rs := fleet(1, 1, 400, 720)
		return rs
	})
	t.Logf("one app flapping every minute for 400 days: %.1f KB", float64(n)/1e3)
	if n > 400*1000 {
		t.Errorf("%d B, want under 1 KB a day", n)
	}
	runtime.KeepAlive(rs)
}

// Pruning a day off a long record allocates its new stream, about the
// old one's size, and its index, not copies of it: a prune after a
// restore goes through every record, and what it allocates beyond the
// stream is garbage it makes of every one.
func TestPruneAllocatesItsStream(t *testing.T) {
	r := fleet(1, 1, 400, 10)[0]
	old := len(r.st.data)
	cut := instant(r.st.first()).AddDate(0, 0, 1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	wrote := r.Prune(cut)
	runtime.ReadMemStats(&after)
	alloc := int(after.TotalAlloc - before.TotalAlloc)
	// The stream rounded up to its size class (up to a tenth more at
	// these sizes) with the rebuild's room, a point of 48 bytes every
	// 1,024 bytes of it, and the few small parts of a record.
	most := wrote + wrote/8 + wrote/1024*48 + 512
	t.Logf("a prune of one day of a %d-byte stream wrote %d bytes and allocated %d", old, wrote, alloc)
	if wrote == 0 || alloc > most {
		t.Errorf("a prune writing %d bytes allocated %d, want at most %d", wrote, alloc, most)
	}
}
