package availmon_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
	"github.com/availmon/availmon/promsource"
)

// outsider is a source as a user would write one outside this module, with
// only availmon's exported API and client_golang: one query per app, apps
// batched by their "team" label, each request reported, the past asked one
// app at a time. It shares no code with promsource.
type outsider struct {
	api      v1.API
	requests atomic.Int64
	mu       sync.Mutex
	calls    [][]string // the apps of each Check call
}

var (
	_ availmon.AppValidator    = (*outsider)(nil)
	_ availmon.BatchPlanner    = (*outsider)(nil)
	_ availmon.InstantQuerier  = (*outsider)(nil)
	_ availmon.RequestReporter = (*outsider)(nil)
	_ availmon.PastSource      = (*outsider)(nil)
)

func newOutsider(t testing.TB, url string) *outsider {
	t.Helper()
	o := &outsider{}
	c, err := api.NewClient(api.Config{Address: url, RoundTripper: reporting{o, http.DefaultTransport}})
	if err != nil {
		t.Fatal(err)
	}
	o.api = v1.NewAPI(c)
	return o
}

// reporting counts every request and reports it to the monitor.
type reporting struct {
	o    *outsider
	next http.RoundTripper
}

func (r reporting) RoundTrip(req *http.Request) (*http.Response, error) {
	r.o.requests.Add(1)
	start := time.Now()
	res, err := r.next.RoundTrip(req)
	availmon.ReportRequest(req.Context(), time.Since(start), err)
	return res, err
}

func (o *outsider) ReportsRequests() bool { return true }

func (o *outsider) ValidateApp(a availmon.App) error {
	if strings.TrimSpace(a.Metric) == "" {
		return errors.New("metric is empty")
	}
	return nil
}

func (o *outsider) PlanBatches(apps []availmon.App, maxBatch int) [][]int {
	byTeam := map[string][]int{}
	for i, a := range apps {
		byTeam[a.Labels["team"]] = append(byTeam[a.Labels["team"]], i)
	}
	var out [][]int
	for _, team := range slices.Sorted(maps.Keys(byTeam)) {
		out = append(out, byTeam[team])
	}
	return out
}

func (o *outsider) Check(ctx context.Context, apps []availmon.App) ([]availmon.Result, error) {
	var names []string
	out := make([]availmon.Result, len(apps))
	for i, a := range apps {
		names = append(names, a.Name)
		vec, rt, err := o.Instant(ctx, a.Metric)
		out[i] = verdict(vec, rt, err)
	}
	o.mu.Lock()
	o.calls = append(o.calls, names)
	o.mu.Unlock()
	return out, nil
}

// verdict is the rules of App.Metric: no sample is unavailable, a zero
// down, else up.
func verdict(vec model.Vector, rt time.Duration, err error) availmon.Result {
	r := availmon.Result{Status: availmon.StatusUp, ResponseTime: rt, Err: err}
	switch {
	case err != nil || len(vec) == 0:
		r.Status = availmon.StatusUnavailable
		if err == nil {
			r.Err = errors.New("no sample")
		}
	case slices.ContainsFunc(vec, func(s *model.Sample) bool { return s.Value == 0 }):
		r.Status = availmon.StatusDown
	}
	return r
}

func (o *outsider) Instant(ctx context.Context, query string) (model.Vector, time.Duration, error) {
	start := time.Now()
	v, _, _, err := o.api.Query(ctx, query, time.Now())
	if err != nil {
		return nil, time.Since(start), err
	}
	vec, ok := v.(model.Vector)
	if !ok {
		return nil, time.Since(start), fmt.Errorf("%s is not an instant vector", v.Type())
	}
	return vec, time.Since(start), nil
}

func (o *outsider) PlanPast(apps []availmon.App) []availmon.PastQuery {
	out := make([]availmon.PastQuery, len(apps))
	for i, a := range apps {
		out[i] = &outsiderPast{o: o, app: i, expr: a.Metric}
	}
	return out
}

// outsiderPast is the past of one app, asked of its own expression a
// minute apart.
type outsiderPast struct {
	o    *outsider
	app  int
	expr string
}

func (q *outsiderPast) MaxSteps() int { return 10_000 }

// states are the app's state at each step of r: true up, false down.
func (q *outsiderPast) states(ctx context.Context, r v1.Range) (map[int64]bool, error) {
	v, _, _, err := q.o.api.QueryRange(ctx, q.expr, r)
	if err != nil {
		return nil, err
	}
	out := map[int64]bool{}
	for _, ss := range v.(model.Matrix) {
		for _, p := range ss.Values {
			ts := p.Timestamp.Unix()
			up, seen := out[ts]
			out[ts] = (up || !seen) && p.Value != 0
		}
	}
	return out, nil
}

func (q *outsiderPast) Probe(ctx context.Context, r availmon.PastRange) (time.Time, bool, error) {
	st, err := q.states(ctx, v1.Range{Start: r.Start, End: r.End, Step: r.Step})
	if err != nil || len(st) == 0 {
		return time.Time{}, false, err
	}
	return time.Unix(slices.Min(slices.Collect(maps.Keys(st))), 0), true, nil
}

func (q *outsiderPast) Counts(ctx context.Context, r availmon.PastRange, add func(availmon.PastCount)) error {
	st, err := q.states(ctx, v1.Range{Start: r.Start, End: r.End, Step: r.Step})
	for ts, up := range st {
		c := availmon.PastCount{App: -1, At: time.Unix(ts, 0), Up: 1}
		if !up {
			c.Up, c.Down = 0, 1
		}
		add(c)
	}
	return err
}

// States reads the app's instants of every window (the multiples of
// r.Resolution in it) from one range query over them all.
func (q *outsiderPast) States(ctx context.Context, r availmon.PastRange, add func(availmon.PastState)) error {
	res := r.Resolution
	if res <= 0 {
		res = time.Minute
	}
	if r.Window < res || r.Step <= 0 || r.Apps != nil && !slices.Contains(r.Apps, q.app) {
		return nil
	}
	st, err := q.states(ctx, v1.Range{Start: r.Start, End: r.End.Add(r.Window - res), Step: res})
	if err != nil {
		return err
	}
	for at := r.Start; !at.After(r.End); at = at.Add(r.Step) {
		c := availmon.PastState{App: q.app, At: at, Window: r.Window, Instants: int(r.Window / res)}
		for i := range c.Instants {
			if up, ok := st[at.Add(time.Duration(i)*res).Unix()]; ok {
				c.Present++
				if !up {
					c.Down++
				}
			}
		}
		if c.Present > 0 {
			add(c)
		}
	}
	return nil
}

// Hours reads the minutes of each window, half a minute after a whole
// minute, from one range query over them all.
func (q *outsiderPast) Hours(ctx context.Context, r availmon.PastRange, add func(availmon.PastCount)) error {
	st, err := q.states(ctx, v1.Range{Start: r.Start.Add(-r.Window + 30*time.Second), End: r.End.Add(-30 * time.Second), Step: time.Minute})
	if err != nil {
		return err
	}
	for at := r.Start; !at.After(r.End); at = at.Add(r.Step) {
		c := availmon.PastCount{App: q.app, At: at}
		for m := at.Add(-r.Window + 30*time.Second); m.Before(at); m = m.Add(time.Minute) {
			switch up, ok := st[m.Unix()]; {
			case ok && up:
				c.Up++
			case ok:
				c.Down++
			}
		}
		if c.Up+c.Down > 0 {
			add(c)
		}
	}
	return nil
}

// equalRun is a monitor run until its backfill is done.
type equalRun struct {
	api *availtest.API
	m   *availmon.Monitor
	reg *prometheus.Registry
}

// runEqual runs a monitor of the scenario's apps on src until its backfill
// is done. It runs one cycle before Run, so that the backfill is planned
// over the discovered apps as well, whatever the scheduling.
func runEqual(t *testing.T, name, url string, src availmon.Source, now time.Time) equalRun {
	t.Helper()
	team := func(t string) map[string]string { return map[string]string{"team": t} }
	var log promtest.SyncBuffer
	reg := prometheus.NewRegistry()
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv", Match: []string{"tlv"}}, {Name: "London", Match: []string{"lon"}}},
		Apps: []availmon.App{
			{Name: "steady", Location: "Tel Aviv", Metric: `demo_up{app="steady"}`, Labels: team("a")},
			{Name: "flaky", Location: "Tel Aviv", Metric: `demo_up{app="flaky"}`, Labels: team("b")},
			{Name: "gone", Location: "London", Metric: `demo_up{app="gone"}`, Labels: team("a")},
		},
		Backends: []availmon.Backend{{Name: name, URL: url, Source: src, BatchSize: promsource.BatchSize}},
		Discover: []availmon.DiscoveryRule{{Name: "extra", Query: `demo_up{app="extra"}`, AppName: "{{ .app }}", LocationLabel: "site"}},
		Interval: time.Hour,
		Backfill: true,
		Clock:    availmontest.NewClock(now),
		Logger:   slog.New(slog.NewTextHandler(&log, nil)),
		// The two monitors are told apart by their Registerer.
		Registerer: reg,
	})
	if err != nil {
		t.Fatal(err)
	}
	availtest.Scrape(t, m)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(log.String(), `msg="backfill done"`) || !strings.Contains(log.String(), `msg="backfill of the record of availability done"`) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: no backfill done in the log:\n%s", name, log.String())
		}
		time.Sleep(20 * time.Millisecond) // polling the log, not waiting for an outcome
	}
	return equalRun{api: availtest.ServeAPI(t, m), m: m, reg: reg}
}

// A source written outside availmon, with only its exported API, is an
// equal of promsource: its batches are the Check calls, its answers make
// the discovered apps, and its past fills the backfill, so that a monitor
// on it shows what a monitor on promsource shows, app by app and minute by
// minute; its requests are counted one by one as promsource's are. Both
// monitors' clocks read now: on the system clock, a 5-minute edge (or a
// full hour) that passed between the two moved one's 24 hours a bucket (the
// clock hours of uptime_24h an hour) from the other's.
func TestOutsideSourceIsAnEqual(t *testing.T) {
	now := time.Now()
	T := now.Truncate(time.Minute)
	downFrom, downTo := T.Add(-3*time.Hour), T.Add(-2*time.Hour)
	past := promtest.OpenMetrics("demo_up", []string{`app="steady",site="tlv"`, `app="flaky",site="tlv"`, `app="extra",site="lon"`},
		T.Add(-26*time.Hour), T.Add(15*time.Minute), time.Minute,
		func(series string, at time.Time) float64 {
			if !strings.Contains(series, "steady") && !at.Before(downFrom) && at.Before(downTo) {
				return 0
			}
			return 1
		})
	srv := promtest.Start(t, promtest.Past(past))
	srv.WaitForQuery(t, `demo_up`, promtest.SampleCount(3))

	be, ct := availtest.PromBackend(t, "main", srv)
	theirs := newOutsider(t, srv.URL())
	ours := runEqual(t, "main", srv.URL(), be.Source, now)
	other := runEqual(t, "main", srv.URL(), theirs, now)

	// Batched calls: the source's own plan, every cycle.
	theirs.mu.Lock()
	for _, c := range theirs.calls {
		if !slices.Equal(c, []string{"steady", "gone"}) && !slices.Equal(c, []string{"flaky"}) {
			t.Errorf("a Check call of apps %v, not a batch of the source's plan", c)
		}
	}
	theirs.mu.Unlock()

	// The apps, listed and discovered, and their states.
	apps := func(c *availtest.API) map[string]string {
		var resp struct{ Data []availtest.WireApp }
		c.Get("/api/apps", &resp)
		out := map[string]string{}
		for _, a := range resp.Data {
			out[a.Name] = a.Location + " " + a.Status + " " + a.Metric
		}
		return out
	}
	want := apps(ours.api)
	if len(want) != 4 || !strings.HasPrefix(want["extra"], "London up ") {
		t.Fatalf("promsource's apps: %v; want 4, extra discovered in London", want)
	}
	if diff := cmp.Diff(want, apps(other.api)); diff != "" {
		t.Errorf("apps (-promsource +outsider):\n%s", diff)
	}

	// The backfilled history, minute by minute, and the 24h counters.
	a, b := history24h(ours.api), history24h(other.api)
	if len(a) < 280 || len(a) != len(b) {
		t.Fatalf("history of %d and %d points, want 288 each", len(a), len(b))
	}
	downSeen := false
	for i := range a[:len(a)-3] { // the last buckets are the live cycles'
		if !a[i].Timestamp.Equal(b[i].Timestamp) || fmtPtr(a[i].Availability) != fmtPtr(b[i].Availability) {
			t.Errorf("bucket %d: promsource says %s %s, the outsider %s %s", i, a[i].Timestamp.Format(time.TimeOnly),
				fmtPtr(a[i].Availability), b[i].Timestamp.Format(time.TimeOnly), fmtPtr(b[i].Availability))
		}
		downSeen = downSeen || a[i].Availability != nil && *a[i].Availability < 100
	}
	if !downSeen {
		t.Error("the backfilled history shows no down time; the data has an hour of it")
	}
	// The backfilled record of availability: the same down time, to the
	// second.
	downs := func(c *availtest.API) map[string]float64 {
		var resp struct {
			Data struct {
				Items []struct {
					Name string  `json:"name"`
					Down float64 `json:"down_seconds"`
				} `json:"items"`
			} `json:"data"`
		}
		c.Get("/api/availability?window=24h&by=app", &resp)
		out := map[string]float64{}
		for _, it := range resp.Data.Items {
			out[it.Name] = it.Down
		}
		return out
	}
	recA := downs(ours.api)
	if recA["flaky"] != 3600 || recA["steady"] != 0 {
		t.Errorf("promsource's record: down %v; want flaky down for the hour of the data", recA)
	}
	if diff := cmp.Diff(recA, downs(other.api)); diff != "" {
		t.Errorf("down time in the record of availability (-promsource +outsider):\n%s", diff)
	}

	upA, upB := uptimes24h(ours.api), uptimes24h(other.api)
	if len(upA) != 3 || upA["flaky"] >= 100 || len(upB) != len(upA) {
		t.Fatalf("uptime_24h: promsource %v, outsider %v; want steady, flaky (down an hour) and extra", upA, upB)
	}
	for name, u := range upA {
		if upB[name] != u {
			t.Errorf("uptime_24h of %s: promsource %v, outsider %v", name, u, upB[name])
		}
	}

	// Each request is one observation of the scrape metrics, for both.
	// promsource asks the three apps in one query, the outsider one query
	// each; the discovery rule's query is one more for both.
	for _, r := range []struct {
		name string
		run  equalRun
		sent func() int64
		want int64
	}{
		{"promsource", ours, ct.Requests.Load, 2},
		{"outsider", other, theirs.requests.Load, 4},
	} {
		before, sent := observations(t, r.run.reg), r.sent()
		availtest.Scrape(t, r.run.m)
		if got, n := observations(t, r.run.reg)-before, r.sent()-sent; got != uint64(n) || n != r.want {
			t.Errorf("%s: a cycle of %d requests (want %d) made %d observations", r.name, n, r.want, got)
		}
	}
}

// observations is the count of availmon_scrape_duration_seconds.
func observations(t *testing.T, reg *prometheus.Registry) uint64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, mf := range mfs {
		if mf.GetName() == "availmon_scrape_duration_seconds" {
			for _, m := range mf.GetMetric() {
				n += m.GetHistogram().GetSampleCount()
			}
		}
	}
	return n
}
