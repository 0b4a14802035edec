package availmon

import (
	"strings"
	"sync"
	"time"
)

// repeatLog keeps a condition that recurs from flooding the log: it is
// logged when it starts, counted while it lasts, and logged with its count
// when it ends, so that a condition seen every cycle for a day costs two
// lines, not 17,000. Conditions are told apart by a key (a rule and a
// reason, a backend).
//
// A condition ends in one of two ways. One that its owner sees come and go
// (a rule's answers skip series, a backend's backfill queries fail) ends
// when the owner calls end. One made of events with no end of their own
// (refused requests) ends when window has passed since it started; the
// first burst of its events are logged one by one, since each says who
// sent it. The zero value logs the first occurrence only and has no
// window.
type repeatLog struct {
	burst  int           // occurrences logged one by one; zero means one
	window time.Duration // zero: a condition ends only through end

	mu sync.Mutex
	on map[string]*repeatRun
}

// repeatRun is one run of a condition: from its first occurrence to its
// end.
type repeatRun struct {
	key   string
	since time.Time
	count int // occurrences
}

// unlogged is how many of the run's occurrences were not logged one by one.
func (r repeatRun) unlogged(burst int) int { return max(0, r.count-max(1, burst)) }

// note records an occurrence of key at now. It reports whether to log this
// one (the start of the condition, or within its burst), and the run of
// key that has ended because its window passed (count zero when none).
func (l *repeatLog) note(key string, now time.Time) (logIt bool, ended repeatRun) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.on[key]
	if r != nil && l.window > 0 && now.Sub(r.since) >= l.window {
		ended, r = *r, nil
	}
	if r == nil {
		if l.on == nil {
			l.on = make(map[string]*repeatRun)
		}
		r = &repeatRun{key: key, since: now}
		l.on[key] = r
	}
	r.count++
	return r.count <= max(1, l.burst), ended
}

// end ends key's condition and returns its run; ok is false when it was
// not on.
func (l *repeatLog) end(key string) (run repeatRun, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.on[key]
	if r == nil {
		return repeatRun{}, false
	}
	delete(l.on, key)
	return *r, true
}

// endUnless ends, without a word, the conditions whose key starts with
// prefix and whose rest keep refuses (a backend a reconfiguration
// removed), so that one of the same name added later starts afresh.
func (l *repeatLog) endUnless(prefix string, keep func(rest string) bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k := range l.on {
		if rest, ok := strings.CutPrefix(k, prefix); ok && !keep(rest) {
			delete(l.on, k)
		}
	}
}

// expire ends the conditions whose window has passed at now, so that the
// count of the last run is reported even when no occurrence follows it.
func (l *repeatLog) expire(now time.Time) []repeatRun {
	if l.window <= 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []repeatRun
	for k, r := range l.on {
		if now.Sub(r.since) >= l.window {
			out = append(out, *r)
			delete(l.on, k)
		}
	}
	return out
}

// Refused requests are one condition with a window: logged one by one only
// up to refusalBurst per refusalWindow, the rest counted and the count
// logged once the window has passed, so that a client (or an attacker)
// sending bad signatures cannot flood the log.
const (
	refusalBurst  = 5
	refusalWindow = time.Minute
)

// logUnloggedRefusals writes the count of the refusals of runs that have
// ended that were not logged one by one.
func (m *Monitor) logUnloggedRefusals(runs ...repeatRun) {
	n := 0
	for _, r := range runs {
		n += r.unlogged(refusalBurst)
	}
	if n > 0 {
		m.log.Info("more requests refused (not logged one by one)", "count", n, "window", formatDuration(refusalWindow))
	}
}

// warnStarted logs msg at warning level when the condition key starts, and
// nothing while it lasts: what it is meanwhile is a metric's to say.
func (m *Monitor) warnStarted(key string, now time.Time, msg string, attrs ...any) {
	if logIt, _ := m.conds.note(key, now); logIt {
		m.log.Warn(msg, attrs...)
	}
}

// infoEnded logs msg when the condition key, if it was on, ends, with how
// many times it was seen (under countName: cycles, failed queries) and how
// long it lasted.
func (m *Monitor) infoEnded(key string, now time.Time, msg, countName string, attrs ...any) {
	if run, ok := m.conds.end(key); ok {
		m.log.Info(msg, append(attrs, countName, run.count, "lasted", formatUptime(now.Sub(run.since)))...)
	}
}
