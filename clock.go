package availmon

import "time"

// TimerClock is a Clock that also makes timers. A Monitor whose Clock is
// one schedules everything it waits for on it: the check cycle, the health
// deadline (/health turns unhealthy when no cycle ended for three intervals
// plus the timeout), the periodic state save and the backfill's waits
// between retries. A test then moves time with its clock alone: each
// interval it advances runs one cycle, and a clock far ahead is not a
// stalled monitor. The system clock is a TimerClock on Go's timers.
//
// With a Clock that has only Now, the monitor schedules on Go's timers and
// measures its health deadline on the system clock, so that a clock set
// ahead (or one that never moves) does not make it look stalled.
//
// What bounds the network and the disk stays on Go's timers whatever the
// Clock: the cycle's timeout, a save's and a backfill query's timeout, and
// the WebSocket pings and write deadlines, as a peer's sockets keep real
// time.
type TimerClock interface {
	Clock
	// NewTimer returns a timer that sends the time on its channel once d
	// has passed, as time.NewTimer does.
	NewTimer(d time.Duration) Timer
}

// Timer is what a TimerClock makes: a single event, as a *time.Timer. As
// time.Timer's do since Go 1.23, Stop and Reset report whether the timer
// was active, and discard a time it sent that was not received yet: after
// either, the channel sends only for the new schedule.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
	Reset(d time.Duration) bool
}

var (
	_ TimerClock = systemClock{}
	_ Timer      = systemTimer{}
)

// NewTimer is a Go timer.
func (systemClock) NewTimer(d time.Duration) Timer { return systemTimer{time.NewTimer(d)} }

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time        { return t.t.C }
func (t systemTimer) Stop() bool                 { return t.t.Stop() }
func (t systemTimer) Reset(d time.Duration) bool { return t.t.Reset(d) }

// timerClockOf is the clock a monitor schedules on: c when it makes
// timers, the system clock otherwise.
func timerClockOf(c Clock) TimerClock {
	if tc, ok := c.(TimerClock); ok {
		return tc
	}
	return systemClock{}
}
