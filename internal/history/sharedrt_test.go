package history

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/statefile"

	"github.com/google/go-cmp/cmp"
)

// sharedDiff drives apps' histories twice with the same checks: once
// with every response time inline, as histories kept them before there was
// a shared table, and once sharing them in one table as a monitor does the
// apps of one query.
type sharedDiff struct {
	size           int
	rts            *SharedRTs
	inline, shared []Checks
	at             int64
}

func newSharedDiff(apps, size int) *sharedDiff {
	return &sharedDiff{size: size, rts: new(SharedRTs), inline: make([]Checks, apps), shared: make([]Checks, apps),
		at: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC).UnixNano()}
}

// step makes one change, its choices taken from r: a cycle that checks
// most apps, a few queries' round trips shared among them and some
// response times their own; a Redate; a Restore; a check added between a
// mark and the encoding at it; an app's history unshared between a mark
// and the encoding at it.
func (d *sharedDiff) step(t *testing.T, r func(n int) int) {
	t.Helper()
	switch k, a := r(40), r(len(d.inline)); {
	case k == 0:
		step := time.Duration(r(7200)-3600) * time.Second / time.Duration(1+r(1000))
		d.inline[a].Redate(step)
		d.shared[a].Redate(step)
	case k == 1:
		es := d.inline[a].List(nil)
		es = es[r(len(es)+1):]
		d.inline[a].Restore(es, d.size, nil, nil)
		d.shared[a].Restore(es, d.size, d.rts, func(int) bool { return r(2) == 0 })
	case k == 2 || k == 3:
		mark := d.shared[a].Mark()
		if k == 2 {
			d.cycle(r)
		} else {
			d.shared[a].Unshare(d.rts) // its app removed
		}
		want := encodeApp(func(e *statefile.Encoder) { d.inline[a].EncodeMarked(e, &statefile.Last{}, mark, nil) })
		got := encodeApp(func(e *statefile.Encoder) { d.shared[a].EncodeMarked(e, &statefile.Last{}, mark, d.rts) })
		if !bytes.Equal(want, got) {
			t.Fatalf("app %d encoded at a mark %x, inline %x", a, got, want)
		}
	default:
		d.cycle(r)
	}
}

func (d *sharedDiff) cycle(r func(n int) int) {
	switch k := r(10); {
	case k < 7:
		d.at += int64(time.Second)
	case k < 9:
		d.at += int64(r(3000)) * int64(time.Millisecond)
	default:
		d.at -= int64(r(100)) * int64(time.Second)
	}
	trips := []time.Duration{300 * time.Millisecond, time.Duration(r(1e9)), time.Duration(r(1 << 40))}
	for a := range d.inline {
		if r(5) == 0 {
			continue // not checked this cycle
		}
		e := Check{At: d.at + int64(r(3))*int64(time.Millisecond)*int64(r(2)), Status: Status(r(3)), RT: trips[r(len(trips))]}
		if r(4) == 0 {
			e.Err = fmt.Sprintf("error %d", r(3))
		}
		own := r(4) == 0
		if own {
			e.RT = time.Duration(r(1 << 30))
		}
		d.inline[a].Add(e, d.size, nil)
		if own {
			d.shared[a].Add(e, d.size, d.rts)
			continue
		}
		d.shared[a].AddShared(e, d.size, d.rts)
	}
}

// check compares the histories, and the table with the references the
// shared histories hold.
func (d *sharedDiff) check(t *testing.T, encode bool) {
	t.Helper()
	refs := map[[2]int64]int32{}
	for a := range d.inline {
		want, got := d.inline[a].List(nil), d.shared[a].List(d.rts)
		if !slices.Equal(want, got) {
			t.Fatalf("app %d (-inline +shared):\n%s", a, cmp.Diff(want, got))
		}
		h := &d.shared[a]
		r := h.reader()
		for range h.n {
			ms, rt, _, _ := r.next()
			if i, ok := rt.shared(); ok {
				refs[[2]int64{key(ms, h.moved), int64(i)}]++
			}
		}
		if encode {
			want := encodeApp(func(e *statefile.Encoder) { d.inline[a].Encode(e, &statefile.Last{}, nil) })
			got := encodeApp(func(e *statefile.Encoder) { d.shared[a].Encode(e, &statefile.Last{}, d.rts) })
			if !bytes.Equal(want, got) {
				t.Fatalf("app %d encoded %x, inline %x", a, got, want)
			}
		}
	}
	n := 0
	for _, s := range d.rts.times {
		k, es := s.k, s.es
		for i, e := range es {
			if e.refs != refs[[2]int64{k, int64(i)}] {
				t.Fatalf("entry %d of %d: %d references, %d checks refer to it", i, k, e.refs, refs[[2]int64{k, int64(i)}])
			}
			if e.refs > 0 {
				n++
			}
		}
	}
	if n != d.rts.n || n != len(refs) {
		t.Fatalf("table counts %d entries, %d in use, checks refer to %d", d.rts.n, n, len(refs))
	}
}

// run drives d for steps, then empties every history: the table must be
// left empty.
func (d *sharedDiff) run(t *testing.T, steps int, r func(n int) int) {
	t.Helper()
	for s := range steps {
		d.step(t, r)
		d.check(t, s%8 == 0)
	}
	for a := range d.shared {
		d.shared[a].Restore(nil, d.size, d.rts, nil)
	}
	if d.rts.Len() != 0 || d.rts.used != 0 {
		t.Fatalf("emptied histories leave %d entries at %d times", d.rts.Len(), d.rts.used)
	}
}

// Histories that share response times read back, and save, exactly what
// histories with every response time inline do, through rings that drop
// and wrap, Redate, Restore and marks, with shared and individual response
// times mixed; and the table holds an entry as long as a check refers to it.
func TestSharedRTsMatchInline(t *testing.T) {
	for _, size := range []int{1, 3, 100} {
		t.Run(fmt.Sprintf("size %d", size), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(size), 7))
			newSharedDiff(4, size).run(t, 1500, rng.IntN)
		})
	}
}

// The same comparison, from fuzz bytes.
func FuzzSharedRTs(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Add([]byte{0, 0, 0, 255, 255, 7, 7, 7, 7, 3, 3, 3, 1, 1, 1})
	f.Add([]byte{2, 1, 0, 0, 19, 3, 17, 99, 5, 5, 5, 5, 5, 5, 5, 5, 5, 200, 19, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1 {
			return
		}
		size := [...]int{1, 2, 3, 5, 100}[int(data[0])%5]
		data = data[1:min(len(data), 2048)]
		newSharedDiff(3, size).run(t, len(data)/8+1, choices(data))
	})
}

// A full table keeps response times inline, and a time with many distinct
// shared response times keeps those past the bound inline: both read back
// the same.
func TestSharedRTsBounds(t *testing.T) {
	rts := new(SharedRTs)
	hs := make([]Checks, maxRTsPerTime+2)
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC).UnixNano()
	for i := range hs {
		hs[i].AddShared(Check{At: at, RT: time.Duration(i+1) * time.Millisecond}, 3, rts)
	}
	if rts.Len() != maxRTsPerTime {
		t.Errorf("%d entries at one time, want %d", rts.Len(), maxRTsPerTime)
	}
	for i := range hs {
		want := []Check{{At: at, RT: time.Duration(i+1) * time.Millisecond}}
		if diff := cmp.Diff(want, hs[i].List(rts)); diff != "" {
			t.Fatalf("app %d (-want +got):\n%s", i, diff)
		}
	}
}

// A reference reads the response time its entry holds now, whatever the
// table read before: a time's list dropped and reused for another time,
// an entry let go and given another response time, a list grown past what
// was read of it, and times that hash to the same place of the table.
func TestSharedRTsReadAfterChange(t *testing.T) {
	rts := new(SharedRTs)
	read := func(k int64, i int, want uint32) {
		t.Helper()
		rts.lock()
		got := rts.micros(k, i)
		rts.unlock()
		if got != want {
			t.Fatalf("entry %d of time %d reads %d µs, want %d", i, k, got, want)
		}
	}
	ref := func(k int64, micros uint32) int {
		t.Helper()
		i, ok := rts.ref(k, micros)
		if !ok {
			t.Fatalf("time %d: the table is full", k)
		}
		return i
	}
	const k1, k2 = 1_000, 2_000
	i := ref(k1, 100)
	read(k1, i, 100)
	rts.release(k1, i) // k1's list goes spare
	j := ref(k2, 200)  // and holds k2's
	read(k2, j, 200)
	i = ref(k1, 300)
	read(k1, i, 300)

	a, b := ref(k2, 1), ref(k2, 2)
	read(k2, b, 2)
	rts.release(k2, b)
	if c := ref(k2, 3); c != b {
		t.Fatalf("a freed entry was not reused: %d, want %d", c, b)
	}
	read(k2, b, 3)
	c := ref(k2, 4) // past the list read last
	read(k2, c, 4)
	read(k2, a, 1)

	// Times that hash to the same slot are probed past each other, and
	// found again when one before them leaves.
	var same []int64
	for k := int64(0); len(same) < 3; k += 1000 {
		if rts.home(k) == 7 {
			same = append(same, k)
		}
	}
	refs := make([][3]int, len(same))
	for n := range 3 {
		for m, k := range same {
			refs[m][n] = ref(k, uint32(10*m+n))
			read(k, refs[m][n], uint32(10*m+n))
		}
	}
	for _, i := range refs[0] { // the first time leaves the table
		rts.release(same[0], i)
	}
	for m, k := range same[1:] {
		for n, i := range refs[m+1] {
			read(k, i, uint32(10*(m+1)+n))
		}
	}
}
