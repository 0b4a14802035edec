package availmon

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Histories cut from one slab are rings of exactly their size: filling and
// wrapping one never touches its neighbours, across slab boundaries too.
func TestRingSlabRingsApart(t *testing.T) {
	for _, size := range []int{1, 3, 100, slabBytes/16 + 1} {
		s := newRingSlab(size)
		hs := make([]*appHistory, 2*slabBytes/(16*size)+3)
		for i := range hs {
			hs[i] = s.history()
			if c := cap(hs[i].entries); c != size {
				t.Fatalf("size %d: ring %d has capacity %d", size, i, c)
			}
		}
		entry := func(app, n int) checkEntry {
			return checkEntry{at: t0.Add(time.Duration(n) * time.Second).UnixNano(), rt: time.Duration(app) * time.Microsecond,
				status: StatusUp, err: fmt.Sprint("app ", app)}
		}
		for n := range size + 2 {
			for i, h := range hs {
				h.add(entry(i, n), size)
			}
		}
		for i, h := range hs {
			var want []checkEntry
			for n := 2; n < size+2; n++ {
				want = append(want, entry(i, n))
			}
			if diff := cmp.Diff(want, h.list(), cmp.AllowUnexported(checkEntry{})); diff != "" {
				t.Fatalf("size %d: history %d (-want +got):\n%s", size, i, diff)
			}
		}
	}
}
