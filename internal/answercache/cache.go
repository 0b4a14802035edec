package answercache

import (
	"cmp"
	"sync"
)

// DefaultMax is the number of answers a Cache with Max 0 keeps.
const DefaultMax = 16

// Sized is an answer that tells how many bytes it holds, for a Cache's
// MaxBytes.
type Sized interface{ Size() int }

// Cache holds answers by query. The requests for one query that arrive
// while its answer is being made wait for it rather than make it too: at
// 100,000 apps an answer over 90 days is 24 MB, and a poller's 64
// connections after each cycle made 64 of them at once (2.5 GB). Other
// queries do not wait. The zero Cache is empty and ready; it is safe for
// concurrent use.
//
// Within MaxBytes the newest answers are kept: one that would take the
// cache over pushes out those made before it, oldest first, rather than
// being refused. The answers asked lately are those asked next, and a
// bound the first answers had filled would keep them for good, however
// seldom they were asked again.
type Cache[A Sized] struct {
	Max      int // answers kept; 0 is DefaultMax
	MaxBytes int // their sizes' sum; 0 is no bound

	mu      sync.Mutex
	answers map[string]*entry[A]
	bytes   int
	made    []string // the keys of the answers counted in bytes, oldest first
}

// entry is one query's answer, ready once done is closed; ok is false
// when making it panicked, and each waiter then makes its own.
type entry[A Sized] struct {
	done chan struct{}
	a    A
	ok   bool
	size int // a's, once counted in bytes
}

// Get returns the answer of key, made by answer unless it is kept or
// being made.
func (c *Cache[A]) Get(key string, answer func() A) A {
	return c.GetOr(key, nil, answer)
}

// GetOr is Get with somewhere to keep the answers c has no room for,
// spill, when it is not nil: an answer kept across snapshots falls back
// to its snapshot's cache rather than to an answer per request.
func (c *Cache[A]) GetOr(key string, spill *Cache[A], answer func() A) A {
	c.mu.Lock()
	e, found := c.answers[key]
	if !found {
		if a, ok := spill.kept(key); ok {
			c.mu.Unlock()
			return a // pushed out of c, still the snapshot's
		}
		if len(c.answers) >= cmp.Or(c.Max, DefaultMax) {
			c.mu.Unlock()
			if spill != nil {
				return spill.Get(key, answer)
			}
			return answer()
		}
		if c.answers == nil {
			c.answers = make(map[string]*entry[A])
		}
		e = &entry[A]{done: make(chan struct{})}
		c.answers[key] = e
	}
	c.mu.Unlock()
	if found {
		<-e.done
		if e.ok {
			return e.a
		}
		return answer()
	}
	// Made outside the lock: another query need not wait.
	defer func() {
		if !e.ok { // answer panicked: the next request tries again
			c.mu.Lock()
			delete(c.answers, key)
			c.mu.Unlock()
		}
		close(e.done)
	}()
	e.a = answer()
	e.ok = true
	out := c.account(key, e)
	if spill != nil {
		// The snapshot's requests may still ask for them: made again
		// at most once a snapshot.
		for _, o := range out {
			spill.put(o.key, o.a)
		}
	}
	return e.a
}

// pushedOut is an answer that account no longer keeps.
type pushedOut[A Sized] struct {
	key string
	a   A
}

// account counts e's bytes against MaxBytes, pushing out the answers made
// before it, oldest first, until it fits, and returns those no longer
// kept: e too when it alone is over MaxBytes (the requests waiting for it
// get it all the same).
func (c *Cache[A]) account(key string, e *entry[A]) []pushedOut[A] {
	if c.MaxBytes == 0 {
		return nil
	}
	n := e.a.Size()
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > c.MaxBytes {
		delete(c.answers, key)
		return []pushedOut[A]{{key, e.a}}
	}
	var out []pushedOut[A]
	for c.bytes+n > c.MaxBytes {
		old := c.answers[c.made[0]]
		out = append(out, pushedOut[A]{c.made[0], old.a})
		delete(c.answers, c.made[0])
		c.bytes -= old.size
		c.made = c.made[1:]
	}
	e.size = n
	c.bytes += n
	c.made = append(c.made, key)
	return out
}

// kept is the answer of key when c, which may be nil, holds it made.
func (c *Cache[A]) kept(key string) (a A, ok bool) {
	if c == nil {
		return a, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, found := c.answers[key]; found {
		select {
		case <-e.done:
			return e.a, e.ok
		default:
		}
	}
	return a, false
}

// put keeps a made answer when there is room and none is kept for key.
func (c *Cache[A]) put(key string, a A) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.answers[key]; ok || len(c.answers) >= cmp.Or(c.Max, DefaultMax) {
		return
	}
	if c.answers == nil {
		c.answers = make(map[string]*entry[A])
	}
	done := make(chan struct{})
	close(done)
	c.answers[key] = &entry[A]{done: done, a: a, ok: true}
}

// Len is the number of answers kept or being made.
func (c *Cache[A]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.answers)
}
