package promsource

import (
	"context"
	"math"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/promtest"
)

// The backfill's 24h counters come from the server per hour (subqueries
// evaluated half a minute after each run of minutes), and its minute counts
// are counted on the server: against the real Prometheus, both equal what
// the apps' own per-minute states say, for fused selectors, equal
// expressions asked by two apps, an expression of two series, a plain
// aggregation, a scalar, a hole in the data, and runs shorter than an hour.
func TestBackfillServerCountsEqualMinutes(t *testing.T) {
	hour := time.Now().Truncate(time.Hour)
	base := hour.Add(-6 * time.Hour)
	series := []string{`app="a"`, `app="b"`, `app="c"`, `app="d"`, `app="e"`, `app="f",instance="1"`, `app="f",instance="2"`}
	past := promtest.OpenMetrics("demo_up", series, base.Add(-10*time.Minute), time.Now().Add(15*time.Minute), time.Minute,
		func(s string, at time.Time) float64 {
			m := at.Unix() / 60
			switch {
			case s == `app="e"` && at.After(base.Add(90*time.Minute)) && at.Before(base.Add(130*time.Minute)):
				return math.NaN() // stands for a hole: written as NaN, read as up
			case (m*7+int64(s[5])*13)%11 == 0:
				return 0
			case s == `app="f",instance="2"` && m%5 == 0:
				return 0
			}
			return 1
		})
	srv := promtest.Start(t, promtest.Past(past))
	srv.WaitForQuery(t, `demo_up`, promtest.SampleCount(len(series)))
	sent := &requestCounter{next: http.DefaultTransport}
	src, err := New(Options{Name: "main", URL: srv.URL(), QueryTimeout: time.Minute, RoundTripper: sent})
	if err != nil {
		t.Fatal(err)
	}
	apps := []availmon.App{
		{Name: "a", Metric: `demo_up{app="a"}`},
		{Name: "b", Metric: `demo_up{app="b"}`},
		{Name: "c", Metric: `demo_up{app="c"}`},
		{Name: "d1", Metric: `demo_up{app="d"}`},
		{Name: "d2", Metric: `demo_up{app="d"}`},
		{Name: "e", Metric: `sum(demo_up{app="e"})`},
		{Name: "f", Metric: `demo_up{app="f"}`},
		{Name: "s", Metric: `scalar(demo_up{app="a"}) * 2`},
	}
	var plan []*pastQuery
	for _, q := range src.PlanPast(apps) {
		plan = append(plan, q.(*pastQuery))
	}
	if len(plan) < 2 {
		t.Fatalf("%d planned queries; the two apps of one expression must be asked apart", len(plan))
	}
	ctx := context.Background()

	// The states per minute, as the app's own expression says.
	type key struct {
		app int
		min int64
	}
	states := map[key]bool{}
	from, to := base, hour
	for app, a := range apps {
		// The app's own expression, as a cycle asks it: down when any
		// value is zero.
		mat, err := src.queryRange(ctx, a.Metric, v1.Range{Start: from, End: to.Add(-time.Minute), Step: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		for _, ss := range mat {
			for _, p := range ss.Values {
				k := key{app, p.Timestamp.Unix() / 60}
				if _, seen := states[k]; !seen {
					states[k] = true
				}
				if p.Value == 0 {
					states[k] = false
				}
			}
		}
	}
	// The probe chooses, per term, whether its series must be grouped
	// by app: the fused term of a, b, c and f (f has two series), not
	// that of d.
	single := map[string]bool{}
	for _, pq := range plan {
		first, found, err := pq.Probe(ctx, availmon.PastRange{Start: from.Add(-2 * time.Hour), End: to, Step: time.Hour})
		if err != nil || !found {
			t.Fatalf("probe: %v %v %v", first, found, err)
		}
		for _, item := range pq.q.Items() {
			for _, app := range pq.apps[item] {
				single[apps[app].Name] = slices.Contains(pq.single, true) && len(pq.single) == 1
				// The data begins 10 minutes before from; a scalar
				// has a value (NaN) at any time.
				if apps[app].Name == "d1" && !first.Equal(from) {
					t.Errorf("the data of d begins at %s, want the probe at %s", first, from)
				}
			}
		}
	}
	if !single["d1"] || !single["d2"] || single["a"] || single["f"] {
		t.Errorf("counted without grouping, per app: %v; want d1 and d2 only", single)
	}
	if len(states) < len(apps)*300 {
		t.Fatalf("%d per-minute states, want %d", len(states), len(apps)*360)
	}

	// Per app and hour: whole hours in one range, and runs within one.
	runs := []struct{ from, to time.Time }{
		{base, base.Add(time.Hour)}, // checked as part of the range below
		{base.Add(2*time.Hour + 13*time.Minute), base.Add(2*time.Hour + 31*time.Minute)},
		{base.Add(5*time.Hour + 59*time.Minute), base.Add(6 * time.Hour)},
	}
	type hourKey struct {
		app int
		ts  int64
	}
	for _, r := range runs {
		wantH := map[hourKey][2]int{}
		for m := r.from.Unix() / 60; m < r.to.Unix()/60; m++ {
			for app := range apps {
				if up, ok := states[key{app, m}]; ok {
					c := wantH[hourKey{app, r.to.Unix() - 30}]
					if up {
						c[0]++
					} else {
						c[1]++
					}
					wantH[hourKey{app, r.to.Unix() - 30}] = c
				}
			}
		}
		gotH := map[hourKey][2]int{}
		at := r.to.Add(-30 * time.Second)
		for _, pq := range plan {
			err := pq.Hours(ctx, availmon.PastRange{Start: at, End: at, Step: time.Hour, Window: r.to.Sub(r.from)}, func(c availmon.PastCount) {
				gotH[hourKey{c.App, c.At.Unix()}] = [2]int{c.Up, c.Down}
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(wantH, gotH); diff != "" {
			t.Errorf("run %s..%s: per-app counts (-minutes +server):\n%s", r.from.Format(time.TimeOnly), r.to.Format(time.TimeOnly), diff)
		}
	}
	// All six hours in one range query of step 1h.
	gotH := map[hourKey][2]int{}
	for _, pq := range plan {
		r := availmon.PastRange{Start: base.Add(time.Hour - 30*time.Second), End: hour.Add(-30 * time.Second), Step: time.Hour, Window: time.Hour}
		if err := pq.Hours(ctx, r, func(c availmon.PastCount) { gotH[hourKey{c.App, c.At.Unix()}] = [2]int{c.Up, c.Down} }); err != nil {
			t.Fatal(err)
		}
	}
	for app := range apps {
		for h := base; h.Before(hour); h = h.Add(time.Hour) {
			var want [2]int
			for m := h.Unix() / 60; m < h.Unix()/60+60; m++ {
				if up, ok := states[key{app, m}]; ok {
					want[map[bool]int{true: 0, false: 1}[up]]++
				}
			}
			if got := gotH[hourKey{app, h.Add(time.Hour).Unix() - 30}]; got != want {
				t.Errorf("app %s, hour %s: server %v, minutes %v", apps[app].Name, h.Format(time.TimeOnly), got, want)
			}
			if want[1] == 0 {
				t.Errorf("app %s, hour %s: no down minute; the data should have some", apps[app].Name, h.Format(time.TimeOnly))
			}
		}
	}

	// Minute counts, weighted: both apps of one expression count.
	wantC := map[int64][2]int{}
	for k, up := range states {
		c := wantC[k.min*60]
		c[map[bool]int{true: 0, false: 1}[up]]++
		wantC[k.min*60] = c
	}
	gotC := map[int64][2]int{}
	for _, pq := range plan {
		err := pq.Counts(ctx, availmon.PastRange{Start: from, End: to.Add(-time.Minute), Step: time.Minute}, func(n availmon.PastCount) {
			c := gotC[n.At.Unix()]
			gotC[n.At.Unix()] = [2]int{c[0] + n.Up, c[1] + n.Down}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(wantC, gotC); diff != "" {
		t.Errorf("minute counts (-minutes +server):\n%s", diff)
	}
	if sent.n.Load() == 0 {
		t.Error("no request counted")
	}
}

// requestCounter counts the requests a source sends.
type requestCounter struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (c *requestCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}
