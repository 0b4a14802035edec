package promsource

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/promtest"
)

// The record's states are counted per series where each app has one
// series, and grouped by app where an app has two at once: against the
// real Prometheus, an app whose two series overlap for an hour, and are
// both gone for the last two, is present exactly at the instants its own
// expression says, not at the sum of its series' instants; an app of
// forty series, whose answer one by one is longer than the source
// takes, is asked grouped.
func TestStatesEqualMinutes(t *testing.T) {
	for _, b := range []struct {
		name  string
		start func(testing.TB, string) *promtest.Server
	}{
		{"prometheus", func(tb testing.TB, past string) *promtest.Server { return promtest.Start(tb, promtest.Past(past)) }},
		{"victoria-metrics", startVictoriaWithPast},
	} {
		t.Run(b.name, func(t *testing.T) { statesEqualMinutes(t, b.start) })
	}
}

// startVictoriaWithPast starts VictoriaMetrics and imports past (OpenMetrics
// text, timestamps in seconds) through its Prometheus text import.
func startVictoriaWithPast(tb testing.TB, past string) *promtest.Server {
	srv := promtest.StartVictoriaMetrics(tb)
	var b strings.Builder
	for _, l := range strings.Split(past, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		i := strings.LastIndexByte(l, ' ')
		fmt.Fprintf(&b, "%s %s000\n", l[:i], l[i+1:])
	}
	for _, path := range []string{"/api/v1/import/prometheus", "/internal/force_flush"} {
		resp, err := http.Post(srv.URL()+path, "text/plain", strings.NewReader(b.String()))
		if err != nil {
			tb.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			tb.Fatalf("%s: %s", path, resp.Status)
		}
		b.Reset()
	}
	return srv
}

func statesEqualMinutes(t *testing.T, start func(testing.TB, string) *promtest.Server) {
	hour := time.Now().Truncate(time.Hour)
	base := hour.Add(-6 * time.Hour)
	type run struct {
		labels   string
		from, to time.Time
	}
	runs := []run{
		{`app="a"`, base.Add(-10 * time.Minute), time.Now().Add(-time.Minute)},
		{`app="b"`, base.Add(-10 * time.Minute), base.Add(3*time.Hour + 20*time.Minute)},
		{`app="f",instance="1"`, base.Add(-10 * time.Minute), base.Add(2 * time.Hour)},
		{`app="f",instance="2"`, base.Add(time.Hour), base.Add(4 * time.Hour)},
	}
	for i := range 40 {
		runs = append(runs, run{fmt.Sprintf(`app="g",instance="%d"`, i), base.Add(-10 * time.Minute), time.Now().Add(-time.Minute)})
	}
	var b strings.Builder
	b.WriteString("# TYPE demo_up gauge\n")
	for _, r := range runs {
		for at := r.from; !at.After(r.to); at = at.Add(time.Minute) {
			v := 1
			if m := at.Unix() / 60; m%7 == 0 && r.labels != `app="f",instance="1"` {
				v = 0
			}
			fmt.Fprintf(&b, "demo_up{%s} %d %d\n", r.labels, v, at.Unix())
		}
	}
	b.WriteString("# EOF\n")
	srv := start(t, b.String())
	srv.WaitForQuery(t, `demo_up{app="a"}`, promtest.SampleCount(1))
	src, err := New(Options{Name: "main", URL: srv.URL(), QueryTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	// The answer of g's forty series one by one is longer than this;
	// grouped by app it fits.
	small, err := New(Options{Name: "small", URL: srv.URL(), QueryTimeout: time.Minute, MaxResponseBytes: 8 << 10})
	if err != nil {
		t.Fatal(err)
	}
	apps := []availmon.App{{Name: "a", Metric: `demo_up{app="a"}`}, {Name: "b", Metric: `demo_up{app="b"}`},
		{Name: "f", Metric: `demo_up{app="f"}`}, {Name: "g", Metric: `demo_up{app="g"}`},
		// a's expression asked by two apps: a query of its own (weight 2).
		{Name: "a2", Metric: `demo_up{app="a"}`}}
	ctx := context.Background()

	// Per app and hour, the instants its own expression has a value at,
	// and those at which some value is zero.
	type key struct {
		app int
		at  int64
	}
	want := map[key][2]int{}
	for app, a := range apps {
		mat, err := src.queryRange(ctx, a.Metric, v1.Range{Start: base, End: hour.Add(-time.Minute), Step: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		down := map[int64]bool{}
		present := map[int64]bool{}
		for _, ss := range mat {
			for _, p := range ss.Values {
				present[p.Timestamp.Unix()] = true
				down[p.Timestamp.Unix()] = down[p.Timestamp.Unix()] || p.Value == 0
			}
		}
		for ts := range present {
			for _, w := range []int64{3600, 6 * 3600} {
				k := key{app, ts - (ts-base.Unix())%w + w*1000}
				c := want[k]
				c[0]++
				if down[ts] {
					c[1]++
				}
				want[k] = c
			}
		}
	}
	// Each query asked about its apps, and the first asked about every
	// query's apps (JoinsPast), tell the same states.
	qs := small.PlanPast(apps)
	if len(qs) < 2 {
		t.Fatalf("%d past queries, want one per weight", len(qs))
	}
	all := []int{0, 1, 2, 3, 4}
	for _, joined := range []bool{false, true} {
		got := map[key][2]int{}
		for _, w := range []time.Duration{time.Hour, 6 * time.Hour} {
			r := availmon.PastRange{Start: base, End: hour.Add(-w), Step: w, Window: w, Resolution: time.Minute}
			asked := qs
			if joined {
				r.Apps, asked = all, qs[:1]
			}
			for _, q := range asked {
				err := q.(availmon.PastStater).States(ctx, r, func(s availmon.PastState) {
					if s.Instants != int(w/time.Minute) {
						t.Errorf("%d instants in a window of %v", s.Instants, w)
					}
					got[key{s.App, s.At.Unix() + int64(w/time.Second)*1000}] = [2]int{s.Present, s.Down}
				})
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("joined %v: states per app and window (-own expression +States):\n%s", joined, diff)
		}
	}
	j := qs[0].(availmon.PastJoiner)
	if !j.JoinsPast(qs[1].(availmon.PastStater)) || j.JoinsPast(src.PlanPast(apps)[1].(availmon.PastStater)) {
		t.Errorf("JoinsPast: want true for a query of the same PlanPast call only")
	}
	if c := want[key{2, base.Unix() + 6*3600*1000}]; c[0] >= 5*60 {
		t.Errorf("f is present %d minutes of six hours; the data should leave it absent two", c[0])
	}
}
