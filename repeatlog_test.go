package availmon

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A condition is logged at its start (or within its burst), counted while
// it lasts, and its run returned when its owner ends it or its window
// passes.
func TestRepeatLog(t *testing.T) {
	type step struct {
		op      string // note, end or expire
		key     string
		at      time.Duration // after t0
		logIt   bool
		ended   []repeatRun
		endedOK bool
	}
	run := func(key string, since time.Duration, n int) repeatRun {
		return repeatRun{key: key, since: t0.Add(since), count: n}
	}
	tests := []struct {
		name   string
		burst  int
		window time.Duration
		steps  []step
	}{
		{name: "owner ends it", steps: []step{
			{op: "note", key: "a", logIt: true},
			{op: "note", key: "a", at: time.Second},
			{op: "note", key: "b", at: time.Second, logIt: true},
			{op: "note", key: "a", at: 2 * time.Second},
			{op: "end", key: "a", at: 3 * time.Second, ended: []repeatRun{run("a", 0, 3)}, endedOK: true},
			{op: "end", key: "a", at: 4 * time.Second},
			{op: "note", key: "a", at: 5 * time.Second, logIt: true},
			{op: "expire", at: 24 * time.Hour}, // no window: nothing expires
			{op: "end", key: "b", at: 25 * time.Hour, ended: []repeatRun{run("b", time.Second, 1)}, endedOK: true},
		}},
		{name: "burst and window", burst: 2, window: time.Minute, steps: []step{
			{op: "note", logIt: true},
			{op: "note", at: time.Second, logIt: true},
			{op: "note", at: 2 * time.Second},
			{op: "note", at: 3 * time.Second},
			{op: "expire", at: 59 * time.Second},
			{op: "note", at: time.Minute, logIt: true, ended: []repeatRun{run("", 0, 4)}},
			{op: "expire", at: 2 * time.Minute, ended: []repeatRun{run("", time.Minute, 1)}},
			{op: "expire", at: 3 * time.Minute},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &repeatLog{burst: tt.burst, window: tt.window}
			for i, s := range tt.steps {
				now := t0.Add(s.at)
				var logIt, ok bool
				var ended []repeatRun
				switch s.op {
				case "note":
					var r repeatRun
					logIt, r = l.note(s.key, now)
					if r.count > 0 {
						ended = []repeatRun{r}
					}
				case "end":
					var r repeatRun
					if r, ok = l.end(s.key); ok {
						ended = []repeatRun{r}
					}
				case "expire":
					ended = l.expire(now)
				}
				if logIt != s.logIt || ok != s.endedOK && s.op == "end" {
					t.Errorf("step %d (%s %q): logIt %v ok %v, want %v %v", i, s.op, s.key, logIt, ok, s.logIt, s.endedOK)
				}
				if d := cmp.Diff(s.ended, ended, cmp.AllowUnexported(repeatRun{})); d != "" {
					t.Errorf("step %d (%s %q): ended runs (-want +got):\n%s", i, s.op, s.key, d)
				}
			}
		})
	}
	if n := (repeatRun{count: 7}).unlogged(5); n != 2 {
		t.Errorf("unlogged of 7 with a burst of 5: %d, want 2", n)
	}
}
