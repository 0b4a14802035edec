package availmontest

import (
	"context"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/fakeclock"
)

// Clock is an availmon.TimerClock that moves only when the test says so.
//
// It keeps two times, as a computer does: its reading (Now), and the time
// that really passed, which its timers run on (as Go's timers run on the
// monotonic clock). Advance lets time pass, and Set forward does the same;
// Set back and Step set the clock without time passing, as an operator or
// NTP sets a system clock. Its Elapsed method tells the time that passed
// between two readings, so that a Monitor sees a Step as the clock being
// set and re-dates what it recorded; Advance and Set it sees as time
// passing (a Set back as a step back, which it sees of any clock).
type Clock struct{ c *fakeclock.Clock }

var _ availmon.TimerClock = (*Clock)(nil)

// NewClock returns a clock that reads t.
func NewClock(t time.Time) *Clock { return &Clock{fakeclock.New(t)} }

// Now returns the clock's reading.
func (c *Clock) Now() time.Time { return c.c.Now() }

// NewTimer returns a timer that fires once d has passed on the clock: when
// Advance or Set reach its due time, or at once when d is not positive.
// Like a time.Timer since Go 1.23, its Stop and Reset discard a time sent
// but not received yet.
func (c *Clock) NewTimer(d time.Duration) availmon.Timer { return c.c.NewTimer(d) }

// Advance lets d pass and fires the timers due by then, in the order of
// their due times (ties in the order they were set), before it returns.
// A timer fires once per Advance however far it goes, as a Go timer whose
// program was paused: a Monitor advanced ten intervals runs one cycle, not
// ten. Advance panics when d is negative; Set moves the clock back.
func (c *Clock) Advance(d time.Duration) { c.c.Advance(d) }

// Set makes the clock read t. Forward it is Advance(t.Sub(c.Now())); back
// it is the clock being set back: no time passes and no timer fires.
func (c *Clock) Set(t time.Time) { c.c.Set(t) }

// Step sets the clock by d, forward or back, with no time passing: no
// timer fires, and Elapsed does not count the step. It is how a test plays
// an operator or NTP setting the clock.
func (c *Clock) Step(d time.Duration) { c.c.Step(d) }

// Elapsed is the time that passed between two readings of Now, leaving out
// Set back and Step (for times Now did not return, it is to.Sub(from)). A
// Monitor uses it to tell a clock being set from time passing.
func (c *Clock) Elapsed(from, to time.Time) time.Duration { return c.c.Elapsed(from, to) }

// Timers is the number of timers set and neither fired nor stopped.
func (c *Clock) Timers() int { return c.c.Timers() }

// BlockUntil waits until at least n timers are set, or ctx ends (then it
// returns ctx's error). A Monitor sets its cycle timer again only once the
// cycle it fired for is published, so after an Advance, BlockUntil with
// the number of timers the monitor keeps (1 for the cycle, 1 more with a
// Store for the periodic save) returns once that cycle is done.
func (c *Clock) BlockUntil(ctx context.Context, n int) error { return c.c.BlockUntil(ctx, n) }
