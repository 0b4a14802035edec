package answercache

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// answer is an answer of size bytes.
type answer struct{ count, size int }

func (a answer) Size() int { return a.size }

// Requests for one /api/availability answer that arrive while it is being
// made wait for it instead of making it again: at 100,000 apps 64 pollers
// made 64 answers of 24 MB at once. A request for another query does not
// wait; one whose maker panicked makes its own.
func TestAvailCacheMakesEachAnswerOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c Cache[answer]
		var made atomic.Int32
		release := make(chan struct{})
		slow := func() answer {
			made.Add(1)
			<-release
			return answer{count: 7}
		}
		var wg sync.WaitGroup
		got := make([]answer, 11)
		wg.Go(func() { got[0] = c.Get("90d", slow) })
		synctest.Wait() // the first is making the answer
		for i := 1; i < len(got); i++ {
			wg.Go(func() { got[i] = c.Get("90d", slow) })
		}
		other := c.Get("30d", func() answer { return answer{count: 3} })
		if other.count != 3 {
			t.Errorf("another query got count %d, want 3 without waiting", other.count)
		}
		synctest.Wait() // the others are waiting, or (made again) blocked in slow
		close(release)
		wg.Wait()
		if n := made.Load(); n != 1 {
			t.Errorf("the answer was made %d times by %d concurrent requests, want once", n, len(got))
		}
		for i, a := range got {
			if a.count != 7 {
				t.Errorf("request %d got count %d, want 7", i, a.count)
			}
		}
	})
}

func TestAvailCacheAfterAPanic(t *testing.T) {
	var c Cache[answer]
	func() {
		defer func() { _ = recover() }()
		c.Get("90d", func() answer { panic("boom") })
	}()
	if a := c.Get("90d", func() answer { return answer{count: 5} }); a.count != 5 {
		t.Errorf("after a panic the answer has count %d, want 5 made again", a.count)
	}
}

// Within MaxBytes the newest answers are kept: one that would take the
// cache over pushes out the oldest, and one larger than MaxBytes alone is
// given to the requests that asked for it and not kept. With somewhere to
// spill to, what is not kept goes there.
func TestAvailCacheKeepsTheNewestWithinBytes(t *testing.T) {
	mk := func(n int) func() answer {
		return func() answer { return answer{size: n, count: n} }
	}
	var spill Cache[answer]
	c := Cache[answer]{MaxBytes: 100}
	c.GetOr("a", &spill, mk(40))
	c.GetOr("b", &spill, mk(50))
	if len(c.answers) != 2 || c.bytes != 90 {
		t.Fatalf("kept %d answers of %d bytes, want a and b's 90", len(c.answers), c.bytes)
	}
	c.GetOr("c", &spill, mk(30)) // pushes out a
	c.GetOr("d", &spill, mk(101))
	_, bKept := c.answers["b"]
	_, cKept := c.answers["c"]
	_, aSpilled := spill.answers["a"]
	_, dSpilled := spill.answers["d"]
	if len(c.answers) != 2 || !bKept || !cKept || c.bytes != 80 || len(spill.answers) != 2 || !aSpilled || !dSpilled {
		t.Errorf("kept %v (%d bytes), spilled %v; want b and c kept (80 bytes), a and d spilled", c.answers, c.bytes, spill.answers)
	}
	for _, key := range []string{"a", "b", "c", "d"} {
		want := map[string]int{"a": 40, "b": 50, "c": 30, "d": 101}[key]
		if got := c.GetOr(key, &spill, mk(1)); got.count != want {
			t.Errorf("%s: count %d, want %d (kept here or spilled)", key, got.count, want)
		}
	}

	// Without a spill, an answer pushed out is made again when asked.
	c = Cache[answer]{MaxBytes: 100}
	c.Get("a", mk(60))
	c.Get("b", mk(60))
	if a := c.Get("a", mk(1)); a.count != 1 {
		t.Errorf("a kept (%d), want it pushed out by b and made again", a.count)
	}
}
