//go:build !race

package ledger

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/availmon/availmon/timeline"
)

// worstLedger returns a ledger of apps whose records hold days of 10
// outages a day up to end (the worst case the record is sized for), and
// its saved bytes.
func worstLedger(apps, days int, end time.Time) (*Ledger, []byte) {
	lay := Layout{Locations: []string{"a", "b"}}
	for i := range apps {
		lay.Apps = append(lay.Apps, AppRef{Name: fmt.Sprintf("app-%05d", i), Location: lay.Locations[i%2]})
	}
	l := New(Options{})
	start := end.AddDate(0, 0, -days)
	l.SetLayout(start, lay, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	const outages = 10
	slot := 24 * time.Hour / outages
	for _, e := range l.cur[App] {
		for d := range days {
			day := start.AddDate(0, 0, d)
			for k := range outages {
				at := day.Add(time.Duration(k) * slot)
				e.rec.Check(at, timeline.Up, slot)
				down := at.Add(time.Duration(rng.Int64N(int64(slot / 2))))
				e.rec.Check(down, timeline.Down, slot)
				e.rec.Check(down.Add(time.Duration(1+rng.IntN(30*60))*time.Second), timeline.Up, slot)
			}
		}
		e.rec.Check(end, timeline.Up, hold)
	}
	return l, l.AppendBinary(nil)
}

// A restored record holds what its file held and its index, not the slack
// of a stream grown an eighth at a time: resident memory is paid for every
// byte of it.
func TestRestoredBytesPerApp(t *testing.T) {
	const apps = 300
	end := t0.AddDate(0, 0, 400)
	_, saved := worstLedger(apps, 400, end)
	file := len(saved) / apps
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := Decode(saved)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(saved)
	per := int(after.HeapAlloc-before.HeapAlloc) / apps
	// Its stream, in the array its rewrite asks for (its bytes, at most
	// those of its record in the file, and the room the rewrite leaves for
	// the tokens it packs into runs as it goes: 32 bytes and a 64th) as
	// the allocator rounds it up to its size class (up to a tenth more at
	// these sizes: 12,288 to 13,568 bytes); its index (a point of 48 bytes
	// every 1,024 bytes of stream); and the record's and the entry's fields.
	most := sizeClass(file+32+file/64) + file/1024*48 + 512
	t.Logf("%d bytes an app restored, %d in the file", per, file)
	if per > most {
		t.Errorf("%d bytes an app restored, want at most %d (%d in the file)", per, most, file)
	}
	runtime.KeepAlive(s)
}

// sizeClass is the bytes the allocator gives an array of n bytes.
func sizeClass(n int) int {
	return cap(append([]byte(nil), make([]byte, n)...))
}

// The first cycle after a restore prunes the records of the time past the
// retention, as the daily prune does: it must not write every record
// afresh at once (a copy of the whole record, and its garbage, in one
// cycle) but a bounded share a cycle, until all are pruned.
func TestPruneAfterRestoreBytes(t *testing.T) {
	const apps = 600
	end := t0.AddDate(0, 0, 401)
	l, saved := worstLedger(apps, 401, end)
	records := len(saved)
	s, err := Decode(saved)
	if err != nil {
		t.Fatal(err)
	}
	r := New(Options{})
	lay := Layout{Locations: []string{"a", "b"}}
	for _, e := range l.cur[App] {
		lay.Apps = append(lay.Apps, AppRef{Name: e.name, Location: e.location})
	}
	now := end.Add(time.Minute)
	r.SetLayout(now, lay, nil)
	r.Restore(s, now)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r.EndCycle(now, hold, nil, nil)
	runtime.ReadMemStats(&after)
	alloc := int(after.TotalAlloc - before.TotalAlloc)
	t.Logf("the first cycle after a restore allocated %d bytes; the records are %d", alloc, records)
	if alloc > records/4 {
		t.Errorf("the first cycle after a restore allocated %d bytes, want at most a quarter of the records' %d", alloc, records)
	}
	// The prune goes on, a share a cycle, until every record is pruned,
	// each cycle's Book (as a snapshot holds it) replacing the last; the
	// records pruned are never held twice but for a cycle's share.
	cut := now.Add(-DefaultRetention)
	book := r.Book(now)
	runtime.GC()
	runtime.ReadMemStats(&before)
	most := 0
	for c := 1; c <= apps; c++ {
		at := now.Add(time.Duration(c) * iv)
		r.EndCycle(at, hold, nil, nil)
		book = r.Book(at)
		if c%20 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&after)
			most = max(most, int(after.HeapAlloc)-int(before.HeapAlloc))
		}
	}
	runtime.KeepAlive(book)
	t.Logf("while the prune went on, the heap grew by %d bytes at most", most)
	if most > 2*pruneBytesPerCycle+records/20 {
		t.Errorf("while the prune went on, the heap grew by %d bytes, want at most %d", most, 2*pruneBytesPerCycle+records/20)
	}
	for _, e := range r.cur[App] {
		if tt := e.rec.View().Totals(time.Time{}, cut); tt.Up+tt.Down+tt.Partial != 0 {
			t.Fatalf("%s still holds %v of known time before the cut after %d cycles", e.name, tt.Up+tt.Down+tt.Partial, apps)
		}
	}
	runtime.ReadMemStats(&before)
	r.EndCycle(now.Add(time.Duration(apps+1)*iv), hold, nil, nil)
	runtime.ReadMemStats(&after)
	if a := int(after.TotalAlloc - before.TotalAlloc); a > records/100 {
		t.Errorf("a cycle after the prune allocated %d bytes, want at most %d", a, records/100)
	}
}
