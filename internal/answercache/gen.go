package answercache

import "sync"

// Gen holds the answers made since what they are made from last changed,
// its generation: a counter the caller moves on with each change. The
// zero Gen is empty and ready; it is safe for concurrent use.
type Gen[A Sized] struct {
	mu  sync.Mutex
	gen uint64 // the generation c's answers were made from
	c   *Cache[A]
}

// Of returns the answers kept for generation gen, nil for a generation
// older than g's: its answers would replace newer ones. A new generation's
// Cache keeps at most max answers of maxBytes in all.
func (g *Gen[A]) Of(gen uint64, max, maxBytes int) *Cache[A] {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.c != nil && gen == g.gen:
		return g.c
	case g.c != nil && gen < g.gen:
		return nil
	}
	g.gen, g.c = gen, &Cache[A]{Max: max, MaxBytes: maxBytes}
	return g.c
}
