package availmontest

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/availmon/availmon"
)

// Source is an availmon.Source whose answers the test scripts per app, and
// which records the calls it gets.
type Source struct {
	mu     sync.Mutex
	script map[string][]availmon.Result
	err    error
	calls  [][]string
}

var _ availmon.Source = (*Source)(nil)

// NewSource returns a source with nothing scripted: every app it is asked
// about is unavailable, with an error that says so.
func NewSource() *Source { return &Source{script: map[string][]availmon.Result{}} }

// Set scripts the results of app's next checks: the first result for its
// next check, the second for the one after, and so on; the last one
// repeats. It replaces what was left of the app's script; with no result,
// the app is unscripted again.
func (s *Source) Set(app string, results ...availmon.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(results) == 0 {
		delete(s.script, app)
		return
	}
	s.script[app] = slices.Clone(results)
}

// SetErr makes every later call fail with err, as a backend that cannot be
// reached (every app of the call is then unavailable); nil ends it. A
// failed call takes nothing from the apps' scripts.
func (s *Source) SetErr(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// Calls is the names of the apps of each Check call so far, in the order
// of the calls.
func (s *Source) Calls() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]string, len(s.calls))
	for i, c := range s.calls {
		out[i] = slices.Clone(c)
	}
	return out
}

// Check answers each app with the next result of its script.
func (s *Source) Check(ctx context.Context, apps []availmon.App) ([]availmon.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, len(apps))
	for i, a := range apps {
		names[i] = a.Name
	}
	s.calls = append(s.calls, names)
	if s.err != nil {
		return nil, s.err
	}
	out := make([]availmon.Result, len(apps))
	for i, a := range apps {
		out[i] = s.next(a.Name)
	}
	return out, nil
}

// next takes app's next result from its script.
func (s *Source) next(app string) availmon.Result {
	rs, ok := s.script[app]
	if !ok {
		return availmon.Result{Status: availmon.StatusUnavailable,
			Err: fmt.Errorf("availmontest: no result scripted for app %q", app)}
	}
	if len(rs) > 1 {
		s.script[app] = rs[1:]
	}
	return rs[0]
}
