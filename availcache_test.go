package availmon

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/availmon/availmon/internal/cachedbody"
)

// Requests for one /api/availability answer that arrive while it is being
// made wait for it instead of making it again: at 100,000 apps 64 pollers
// made 64 answers of 24 MB at once. A request for another query does not
// wait; one whose maker panicked makes its own.
func TestAvailCacheMakesEachAnswerOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c availCache
		var made atomic.Int32
		release := make(chan struct{})
		slow := func() availAnswer {
			made.Add(1)
			<-release
			return availAnswer{count: 7}
		}
		var wg sync.WaitGroup
		got := make([]availAnswer, 11)
		wg.Go(func() { got[0] = c.get("90d", slow) })
		synctest.Wait() // the first is making the answer
		for i := 1; i < len(got); i++ {
			wg.Go(func() { got[i] = c.get("90d", slow) })
		}
		other := c.get("30d", func() availAnswer { return availAnswer{count: 3} })
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
	var c availCache
	func() {
		defer func() { _ = recover() }()
		c.get("90d", func() availAnswer { panic("boom") })
	}()
	if a := c.get("90d", func() availAnswer { return availAnswer{count: 5} }); a.count != 5 {
		t.Errorf("after a panic the answer has count %d, want 5 made again", a.count)
	}
}

// An answer that would take the cache over its bytes is given to the
// requests that asked for it and not kept.
func TestAvailCacheBoundsBytes(t *testing.T) {
	c := availCache{maxBytes: 100}
	mk := func(n int) func() availAnswer {
		return func() availAnswer { return availAnswer{body: cachedbody.New(make([]byte, n)), count: n} }
	}
	if a := c.get("a", mk(60)); a.count != 60 {
		t.Fatalf("got %d", a.count)
	}
	if a := c.get("b", mk(60)); a.count != 60 {
		t.Fatalf("got %d", a.count)
	}
	if _, kept := c.answers["b"]; kept || c.bytes != 60 {
		t.Errorf("kept b %v, %d bytes: want only a's 60 bytes kept", kept, c.bytes)
	}
	if a := c.get("a", mk(1)); a.count != 60 {
		t.Errorf("a was made again (%d), want it kept", a.count)
	}

	// With somewhere to spill to, what does not fit is kept there, and
	// the answers that follow go there too.
	var spill availCache
	c = availCache{maxBytes: 100}
	c.getOr("a", &spill, mk(60))
	c.getOr("b", &spill, mk(60))
	for key, want := range map[string]int{"a": 60, "b": 60, "c": 5} {
		if a := c.getOr(key, &spill, mk(5)); a.count != want {
			t.Errorf("%s: count %d, want %d (kept)", key, a.count, want)
		}
	}
	if _, ok := spill.answers["c"]; len(c.answers) != 1 || len(spill.answers) != 2 || !ok {
		t.Errorf("kept %d, spilled %d answers; want a kept, b and c spilled", len(c.answers), len(spill.answers))
	}
}
