package availmon

import (
	"time"

	"github.com/availmon/availmon/internal/history"
)

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

// elapsedClock is what a Clock may also implement to tell the real time
// between two of its readings, whatever the clock was set to meanwhile.
// The system clock does, from the monotonic reading Go keeps with
// time.Now. A monitor whose clock tells it sees the clock being set (a
// step) and re-dates its record by the step (followClock). With a plain Now
// it cannot tell a step forward from time passing between cycles; a step
// back it still sees, as a reading before the last cycle's, and takes it
// to be as small as that reading shows.
type elapsedClock interface {
	Elapsed(from, to time.Time) time.Duration
}

var (
	_ Clock        = systemClock{}
	_ elapsedClock = systemClock{}
)

// Elapsed is to minus from by their monotonic readings when both have one:
// readings of time.Now do, a time restored from a file does not.
func (systemClock) Elapsed(from, to time.Time) time.Duration { return to.Sub(from) }

// clockStepTolerance is how far the clock may move apart from the time
// that really passed before it counts as set. Below it are NTP's slewing
// (at most half a millisecond a second, 1.8 s over the longest interval,
// harmless when taken as a step) and a test clock's jitter; a check
// history that such jitter would put out of order keeps its order
// (checkTime).
const clockStepTolerance = time.Second

// clockStep is how far the clock was set between reading prev and reading
// now: the time the clock moved less the time that passed (none, when the
// clock cannot tell). It is zero for the first cycle and below
// clockStepTolerance, and a plain clock's is never forward.
func (m *Monitor) clockStep(prev, now time.Time) time.Duration {
	if prev.IsZero() {
		return 0
	}
	step := now.Round(0).Sub(prev.Round(0))
	if ec, ok := m.clock.(elapsedClock); ok {
		step -= ec.Elapsed(prev, now)
	} else {
		step = min(step, 0)
	}
	if step > -clockStepTolerance && step < clockStepTolerance {
		return 0
	}
	return step
}

// followClock re-dates the record when the clock was set since the last
// cycle, so that it keeps its real spacing under the clock's new setting:
// the checks of an hour the clock ran a day ahead are a day back in place
// once it returns, and the 24-hour counters of the real day are still
// there. It returns the step, for checkTime.
func (m *Monitor) followClock(end time.Time) time.Duration {
	st := m.state
	step := m.clockStep(st.lastCycle, end)
	if step == 0 {
		return 0
	}
	m.log.Warn("clock set: the checks, counters and history so far are re-dated by the step",
		"step", step.String(), "last_cycle", st.lastCycle, "now", end)
	for i := range st.apps {
		st.apps[i].redate(step)
		st.history[i].Redate(step)
		st.editDay(i, func(w *history.AppDay) { w.Redate(step) })
	}
	for i := range st.locDay {
		st.locDay[i].Redate(step)
	}
	st.sysDay.Redate(step)
	m.hist.redate(step)
	return step
}

// checkTime is when a check read at, in the cycle that ended at end, was
// made, under the clock's setting at end (the clock may have been set
// during the cycle, after at was read), and never before the app's last
// check, so that its history stays in order under jitter too small to be
// a step.
func (m *Monitor) checkTime(prev *appState, at, end time.Time, step time.Duration) time.Time {
	ec, ok := m.clock.(elapsedClock)
	switch {
	case step == 0:
	case ok:
		at = end.Add(-ec.Elapsed(at, end))
	case at.After(end):
		at = end
	}
	if last := prev.lastCheckTime(); prev.checked() && at.Before(last) {
		return last
	}
	return at
}
