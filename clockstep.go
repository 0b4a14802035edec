package availmon

import "time"

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
		st.history[i].redate(step)
		st.appDay[i].redate(step)
	}
	for i := range st.locDay {
		st.locDay[i].redate(step)
	}
	st.sysDay.redate(step)
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

// hoursOf is step in whole hours, to the nearest: the 24-hour windows
// count per clock hour and move by whole hours.
func hoursOf(step time.Duration) int64 { return int64(step.Round(time.Hour) / time.Hour) }
