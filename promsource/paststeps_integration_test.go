package promsource

import (
	"context"
	"testing"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/promtest"
)

// A question of more steps than Prometheus answers in one range query
// (11,000) is asked in parts and answered whole: a monitor whose clock is
// far ahead of the server's, or a caller's step arithmetic, must not make
// the server refuse it as bad input, a refusal that asking again repeats.
func TestPastQuestionOfMoreStepsThanPrometheusAnswers(t *testing.T) {
	end := time.Now().Truncate(time.Minute)
	start := end.Add(-12_000 * time.Minute)
	past := promtest.OpenMetrics("demo_up", []string{`app="a"`}, start.Add(-10*time.Minute), end.Add(10*time.Minute),
		time.Minute, func(string, time.Time) float64 { return 1 })
	srv := promtest.Start(t, promtest.Past(past))
	srv.WaitForQuery(t, `demo_up`, promtest.SampleCount(1))
	src, err := New(Options{Name: "main", URL: srv.URL(), QueryTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	qs := src.PlanPast([]availmon.App{{Name: "a", Metric: `demo_up{app="a"}`}})
	if len(qs) != 1 {
		t.Fatalf("%d planned queries, want 1", len(qs))
	}
	r := availmon.PastRange{Start: start, End: end, Step: time.Minute}
	if steps := int(r.End.Sub(r.Start) / r.Step); steps <= 11_000 {
		t.Fatalf("the range has %d steps; the test needs more than Prometheus's 11,000", steps)
	}
	seen := map[int64]bool{}
	err = qs[0].Counts(context.Background(), r, func(c availmon.PastCount) {
		if c.Up != 1 || c.Down != 0 {
			t.Errorf("%s: up %d down %d, want 1 up", c.At, c.Up, c.Down)
		}
		seen[c.At.Unix()] = true
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := int(r.End.Sub(r.Start)/r.Step) + 1; len(seen) != want {
		t.Errorf("counts at %d steps, want every one of the %d", len(seen), want)
	}
	var states int
	st := qs[0].(availmon.PastStater)
	err = st.States(context.Background(), availmon.PastRange{Start: start, End: end.Add(-time.Minute), Step: time.Minute,
		Window: time.Minute, Resolution: time.Minute}, func(s availmon.PastState) {
		if s.Present == 1 && s.Down == 0 {
			states++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := 12_000; states != want {
		t.Errorf("%d windows up, want %d", states, want)
	}
}
