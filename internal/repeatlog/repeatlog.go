// Package repeatlog keeps a condition that recurs (a backend failing
// every cycle, a client sending bad signatures) from flooding the log:
// Log.Note says whether to log an occurrence, and Log.End or Log.Expire
// returns the Run to report with its count when the condition ends. A Log
// is safe for concurrent use.
package repeatlog

import (
	"strings"
	"sync"
	"time"
)

// Log keeps a condition that recurs from flooding the log: it is
// logged when it starts, counted while it lasts, and logged with its count
// when it ends, so that a condition seen every cycle for a day costs two
// lines, not 17,000. Conditions are told apart by a key (a rule and a
// reason, a backend).
//
// A condition ends in one of two ways. One that its owner sees come and go
// (a rule's answers skip series, a backend's backfill queries fail) ends
// when the owner calls End. One made of events with no end of their own
// (refused requests) ends when window has passed since it started; the
// first burst of its events are logged one by one, since each says who
// sent it. The zero value logs the first occurrence only and has no
// window.
type Log struct {
	Burst  int           // occurrences logged one by one; zero means one
	Window time.Duration // zero: a condition ends only through End

	mu sync.Mutex
	on map[string]*Run
}

// Run is one run of a condition: from its first occurrence to its
// end.
type Run struct {
	Key   string
	Since time.Time
	Count int // occurrences
}

// Unlogged is how many of the run's occurrences were not logged one by one.
func (r Run) Unlogged(burst int) int { return max(0, r.Count-max(1, burst)) }

// Note records an occurrence of key at now. It reports whether to log this
// one (the start of the condition, or within its burst), and the run of
// key that has ended because its window passed (count zero when none).
func (l *Log) Note(key string, now time.Time) (logIt bool, ended Run) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.on[key]
	if r != nil && l.Window > 0 && now.Sub(r.Since) >= l.Window {
		ended, r = *r, nil
	}
	if r == nil {
		if l.on == nil {
			l.on = make(map[string]*Run)
		}
		r = &Run{Key: key, Since: now}
		l.on[key] = r
	}
	r.Count++
	return r.Count <= max(1, l.Burst), ended
}

// End ends key's condition and returns its run; ok is false when it was
// not on.
func (l *Log) End(key string) (run Run, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.on[key]
	if r == nil {
		return Run{}, false
	}
	delete(l.on, key)
	return *r, true
}

// EndUnless ends, without a word, the conditions whose key starts with
// prefix and whose rest keep refuses (a backend a reconfiguration
// removed), so that one of the same name added later starts afresh.
func (l *Log) EndUnless(prefix string, keep func(rest string) bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k := range l.on {
		if rest, ok := strings.CutPrefix(k, prefix); ok && !keep(rest) {
			delete(l.on, k)
		}
	}
}

// Expire ends the conditions whose window has passed at now, so that the
// count of the last run is reported even when no occurrence follows it.
func (l *Log) Expire(now time.Time) []Run {
	if l.Window <= 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Run
	for k, r := range l.on {
		if now.Sub(r.Since) >= l.Window {
			out = append(out, *r)
			delete(l.on, k)
		}
	}
	return out
}
