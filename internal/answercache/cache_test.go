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

// An answer that would take the cache over its bytes is given to the
// requests that asked for it and not kept.
func TestAvailCacheBoundsBytes(t *testing.T) {
	c := Cache[answer]{MaxBytes: 100}
	mk := func(n int) func() answer {
		return func() answer { return answer{size: n, count: n} }
	}
	if a := c.Get("a", mk(60)); a.count != 60 {
		t.Fatalf("got %d", a.count)
	}
	if a := c.Get("b", mk(60)); a.count != 60 {
		t.Fatalf("got %d", a.count)
	}
	if _, kept := c.answers["b"]; kept || c.bytes != 60 {
		t.Errorf("kept b %v, %d bytes: want only a's 60 bytes kept", kept, c.bytes)
	}
	if a := c.Get("a", mk(1)); a.count != 60 {
		t.Errorf("a was made again (%d), want it kept", a.count)
	}

	// With somewhere to spill to, what does not fit is kept there, and
	// the answers that follow go there too.
	var spill Cache[answer]
	c = Cache[answer]{MaxBytes: 100}
	c.GetOr("a", &spill, mk(60))
	c.GetOr("b", &spill, mk(60))
	for key, want := range map[string]int{"a": 60, "b": 60, "c": 5} {
		if a := c.GetOr(key, &spill, mk(5)); a.count != want {
			t.Errorf("%s: count %d, want %d (kept)", key, a.count, want)
		}
	}
	if _, ok := spill.answers["c"]; len(c.answers) != 1 || len(spill.answers) != 2 || !ok {
		t.Errorf("kept %d, spilled %d answers; want a kept, b and c spilled", len(c.answers), len(spill.answers))
	}
}
