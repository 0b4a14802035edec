package availmon

import (
	"sync"
	"time"
)

// Refused requests are logged one by one only up to refusalBurst per
// refusalWindow; the rest are counted and the count logged once the window
// has passed, so that a client (or an attacker) sending bad signatures
// cannot flood the log.
const (
	refusalBurst  = 5
	refusalWindow = time.Minute
)

// refusalLog counts refusals per window. The zero value is ready.
type refusalLog struct {
	mu      sync.Mutex
	start   time.Time // of the current window
	logged  int       // refusals logged one by one in it
	dropped int       // and those only counted
}

// note records a refusal at now. It reports whether to log this one, and
// how many refusals of a window that has just ended were not logged.
func (l *refusalLog) note(now time.Time) (logIt bool, dropped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	dropped = l.roll(now)
	if l.logged < refusalBurst {
		l.logged++
		return true, dropped
	}
	l.dropped++
	return false, dropped
}

// flush returns the count of unlogged refusals once their window has
// ended (zero before), so that the last burst is reported even when no
// refusal follows it.
func (l *refusalLog) flush(now time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.start) < refusalWindow {
		return 0
	}
	return l.roll(now)
}

// roll starts a new window at now if the current one has ended, returning
// the refusals the old one did not log.
func (l *refusalLog) roll(now time.Time) int {
	if now.Sub(l.start) < refusalWindow {
		return 0
	}
	dropped := l.dropped
	l.start, l.logged, l.dropped = now, 0, 0
	return dropped
}

// logUnloggedRefusals writes the count of refusals that were not logged one
// by one.
func (m *Monitor) logUnloggedRefusals(n int) {
	if n > 0 {
		m.log.Info("more requests refused (not logged one by one)", "count", n, "window", formatDuration(refusalWindow))
	}
}
