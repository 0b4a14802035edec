// Package fakeclock is the fake clock behind availmontest.Clock. It lives
// apart so that availmon's own internal tests, which cannot import
// availmontest (it imports availmon), use the same one.
package fakeclock

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"
)

// Clock is a clock that moves only when told. It keeps two times: its
// reading, and the real time that passed, which its timers run on (as Go's
// run on the monotonic clock). Advance and Set forward move both; Set back
// and Step move the reading alone, as setting a real clock does.
type Clock struct {
	mu      sync.Mutex
	now     time.Time               // the reading
	real    time.Duration           // real time passed since New
	reals   map[int64]time.Duration // reading (unix ns) → real time when Now gave it
	timers  []*Timer                // armed, in no order
	seq     uint64                  // arming order, to fire ties in order
	changed chan struct{}           // closed when timers are armed or fire
}

// New returns a clock that reads t.
func New(t time.Time) *Clock {
	return &Clock{now: t, reals: map[int64]time.Duration{}, changed: make(chan struct{})}
}

// Now returns the reading.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reals[c.now.UnixNano()] = c.real
	return c.now
}

// Elapsed is the real time that passed between two readings Now gave:
// Set and Step in between do not count. For times it did not give, it is
// to minus from.
func (c *Clock) Elapsed(from, to time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, okF := c.reals[from.UnixNano()]
	t, okT := c.reals[to.UnixNano()]
	if !okF || !okT {
		return to.Sub(from)
	}
	return t - f
}

// Advance lets d pass, and fires the timers due by then in the order of
// their due times (ties in the order they were armed). A negative d
// panics: time does not pass backwards; Set moves the reading back.
func (c *Clock) Advance(d time.Duration) {
	if d < 0 {
		panic("fakeclock: Advance by a negative duration; use Set to move the clock back")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advanceLocked(d)
}

func (c *Clock) advanceLocked(d time.Duration) {
	c.now = c.now.Add(d)
	c.real += d
	c.fireLocked()
}

// Set makes the clock read t. Forward, it is Advance(t - Now()); back, it
// is the clock being set back: no time passes and no timer fires.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := t.Sub(c.now); d > 0 {
		c.advanceLocked(d)
		return
	}
	c.now = t
}

// Step sets the clock by d, forward or back, with no time passing: no
// timer fires, and Elapsed does not count the step.
func (c *Clock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// NewTimer returns a timer that fires once d has passed; at once when d
// is not positive.
func (c *Clock) NewTimer(d time.Duration) *Timer {
	t := &Timer{c: c, ch: make(chan time.Time, 1)}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.armLocked(t, d)
	return t
}

// Timers is how many timers are armed: made or reset, and neither fired
// nor stopped since.
func (c *Clock) Timers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// BlockUntil waits until at least n timers are armed, or ctx ends (its
// error). A loop that re-arms its timer once it has done what the timer
// woke it for is then done with it.
func (c *Clock) BlockUntil(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		armed, changed := len(c.timers), c.changed
		c.mu.Unlock()
		if armed >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

// armLocked schedules t to fire d from now, or fires it at once.
func (c *Clock) armLocked(t *Timer, d time.Duration) {
	t.due = c.real + d
	c.seq++
	t.seq = c.seq
	c.timers = append(c.timers, t)
	c.fireLocked()
	c.notifyLocked()
}

// disarmLocked removes t and reports whether it was armed.
func (c *Clock) disarmLocked(t *Timer) bool {
	i := slices.Index(c.timers, t)
	if i < 0 {
		return false
	}
	c.timers = slices.Delete(c.timers, i, i+1)
	c.notifyLocked()
	return true
}

// fireLocked fires the timers due, in order.
func (c *Clock) fireLocked() {
	var due []*Timer
	c.timers = slices.DeleteFunc(c.timers, func(t *Timer) bool {
		if t.due <= c.real {
			due = append(due, t)
			return true
		}
		return false
	})
	if len(due) == 0 {
		return
	}
	slices.SortFunc(due, func(a, b *Timer) int {
		return cmp.Or(cmp.Compare(a.due, b.due), cmp.Compare(a.seq, b.seq))
	})
	for _, t := range due {
		select {
		case t.ch <- c.now:
		default: // an earlier time not received yet: as a Go timer, one is kept
		}
	}
	c.notifyLocked()
}

func (c *Clock) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Timer is a timer of a Clock, with time.Timer's behaviour since Go 1.23:
// Stop and Reset discard a time sent but not received yet.
type Timer struct {
	c   *Clock
	ch  chan time.Time
	due time.Duration // on the clock's real time
	seq uint64
}

// C is the channel the timer sends the clock's reading on when it fires.
func (t *Timer) C() <-chan time.Time { return t.ch }

// Stop stops the timer and reports whether it was armed.
func (t *Timer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.drain()
	return t.c.disarmLocked(t)
}

// Reset arms the timer to fire d from now and reports whether it was
// armed before.
func (t *Timer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.drain()
	was := t.c.disarmLocked(t)
	t.c.armLocked(t, d)
	return was
}

func (t *Timer) drain() {
	select {
	case <-t.ch:
	default:
	}
}
