package repeatlog

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A condition is logged at its start (or within its burst), counted while
// it lasts, and its run returned when its owner ends it or its window
// passes.
// t0 is a whole minute, as a clock reads in the monitor's tests.
var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func TestRepeatLog(t *testing.T) {
	type step struct {
		op      string // note, end or expire
		key     string
		at      time.Duration // after t0
		logIt   bool
		ended   []Run
		endedOK bool
	}
	run := func(key string, since time.Duration, n int) Run {
		return Run{Key: key, Since: t0.Add(since), Count: n}
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
			{op: "end", key: "a", at: 3 * time.Second, ended: []Run{run("a", 0, 3)}, endedOK: true},
			{op: "end", key: "a", at: 4 * time.Second},
			{op: "note", key: "a", at: 5 * time.Second, logIt: true},
			{op: "expire", at: 24 * time.Hour}, // no window: nothing expires
			{op: "end", key: "b", at: 25 * time.Hour, ended: []Run{run("b", time.Second, 1)}, endedOK: true},
		}},
		{name: "burst and window", burst: 2, window: time.Minute, steps: []step{
			{op: "note", logIt: true},
			{op: "note", at: time.Second, logIt: true},
			{op: "note", at: 2 * time.Second},
			{op: "note", at: 3 * time.Second},
			{op: "expire", at: 59 * time.Second},
			{op: "note", at: time.Minute, logIt: true, ended: []Run{run("", 0, 4)}},
			{op: "expire", at: 2 * time.Minute, ended: []Run{run("", time.Minute, 1)}},
			{op: "expire", at: 3 * time.Minute},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &Log{Burst: tt.burst, Window: tt.window}
			for i, s := range tt.steps {
				now := t0.Add(s.at)
				var logIt, ok bool
				var ended []Run
				switch s.op {
				case "note":
					var r Run
					logIt, r = l.Note(s.key, now)
					if r.Count > 0 {
						ended = []Run{r}
					}
				case "end":
					var r Run
					if r, ok = l.End(s.key); ok {
						ended = []Run{r}
					}
				case "expire":
					ended = l.Expire(now)
				}
				if logIt != s.logIt || ok != s.endedOK && s.op == "end" {
					t.Errorf("step %d (%s %q): logIt %v ok %v, want %v %v", i, s.op, s.key, logIt, ok, s.logIt, s.endedOK)
				}
				if d := cmp.Diff(s.ended, ended); d != "" {
					t.Errorf("step %d (%s %q): ended runs (-want +got):\n%s", i, s.op, s.key, d)
				}
			}
		})
	}
	if n := (Run{Count: 7}).Unlogged(5); n != 2 {
		t.Errorf("unlogged of 7 with a burst of 5: %d, want 2", n)
	}
}
