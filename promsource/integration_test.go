package promsource_test

import (
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
	"github.com/availmon/availmon/promsource"
)

// These tests run availmon against a real Prometheus (internal/promtest);
// they skip when the binary is missing, unless CI is set.

// A target flips up, down and away; after Prometheus has scraped each
// change, one cycle makes /api/apps, /api/locations/{name} and /api/status
// follow, per location and overall.
func TestPrometheusFollowsTargets(t *testing.T) {
	t.Parallel() // each test has its own Prometheus; most of their time is waiting for scrapes
	tlv, fra := promtest.NewExporter(t), promtest.NewExporter(t)
	for _, app := range []string{"a", "b"} {
		tlv.Set(app, 1)
	}
	fra.Set("c", 1)
	prom := promtest.Start(t, promtest.Job("tlv", tlv.Target()), promtest.Job("fra", fra.Target()))
	backend, _ := availtest.PromBackend(t, "main", prom)
	m := availtest.NewMonitor(t, availmon.Options{
		Locations: availtest.TwoLocations,
		Apps: []availmon.App{
			{Name: "a", Location: "Tel Aviv", Metric: `demo_up{app="a"}`},
			{Name: "b", Location: "Tel Aviv", Metric: `demo_up{app="b"}`},
			{Name: "c", Location: "Frankfurt", Metric: `demo_up{app="c"}`},
			// The target's own health: 0 when the exporter is gone.
			{Name: "fra-target", Location: "Frankfurt", Metric: `up{job="fra"}`},
		},
		Backends: []availmon.Backend{backend},
	})
	api := availtest.ServeAPI(t, m)
	prom.WaitForQuery(t, `demo_up == 1`, promtest.SampleCount(3))
	prom.WaitForQuery(t, `up == 1`, promtest.SampleCount(2))
	availtest.RunMonitor(t, m, api) // for a live loop; the test runs the cycles

	type want struct {
		apps      map[string]string
		tlv, fra  availtest.WireLocationSummary
		status    availtest.WireStatus
		appErrors map[string]string // app -> part of its error
	}
	check := func(step string, w want) {
		t.Helper()
		availtest.Scrape(t, m)
		if diff := cmp.Diff(w.apps, api.AppStates()); diff != "" {
			t.Errorf("%s: /api/apps states (-want +got):\n%s", step, diff)
		}
		for name, sum := range map[string]availtest.WireLocationSummary{"Tel Aviv": w.tlv, "Frankfurt": w.fra} {
			loc := api.Location(name)
			if diff := cmp.Diff(sum, loc.Summary); diff != "" {
				t.Errorf("%s: /api/locations/%s summary (-want +got):\n%s", step, name, diff)
			}
			for _, a := range loc.Apps {
				if a.Status != w.apps[a.Name] {
					t.Errorf("%s: /api/locations/%s lists %s as %q, /api/apps says %q", step, name, a.Name, a.Status, w.apps[a.Name])
				}
			}
		}
		if diff := cmp.Diff(w.status, api.Status()); diff != "" {
			t.Errorf("%s: /api/status (-want +got):\n%s", step, diff)
		}
		for name, part := range w.appErrors {
			if got := api.App(name).Error; !strings.Contains(got, part) {
				t.Errorf("%s: app %s error = %q, want it to contain %q", step, name, got, part)
			}
		}
	}
	status := func(up, down, unavail int, avail *float64) availtest.WireStatus {
		return availtest.WireStatus{SystemStatus: "healthy", OverallAvailability: avail, TotalApplications: 4,
			ApplicationsUp: up, ApplicationsDown: down, ApplicationsUnavailable: unavail,
			PrometheusConnectivity: "connected"}
	}

	check("all up", want{
		apps:   map[string]string{"a": "up", "b": "up", "c": "up", "fra-target": "up"},
		tlv:    availtest.WireLocationSummary{TotalApps: 2, UpCount: 2, AvailabilityPercentage: availtest.Pct(100)},
		fra:    availtest.WireLocationSummary{TotalApps: 2, UpCount: 2, AvailabilityPercentage: availtest.Pct(100)},
		status: status(4, 0, 0, availtest.Pct(100)),
	})

	tlv.Set("b", 0)
	prom.WaitForQuery(t, `demo_up{app="b"}`, promtest.SampleEquals(0))
	check("b down", want{
		apps:   map[string]string{"a": "up", "b": "down", "c": "up", "fra-target": "up"},
		tlv:    availtest.WireLocationSummary{TotalApps: 2, UpCount: 1, DownCount: 1, AvailabilityPercentage: availtest.Pct(50)},
		fra:    availtest.WireLocationSummary{TotalApps: 2, UpCount: 2, AvailabilityPercentage: availtest.Pct(100)},
		status: status(3, 1, 0, availtest.Pct(75)),
	})

	tlv.Delete("a")
	prom.WaitForQuery(t, `demo_up{app="a"}`, promtest.SampleCount(0))
	check("a away", want{
		apps:      map[string]string{"a": "unavailable", "b": "down", "c": "up", "fra-target": "up"},
		tlv:       availtest.WireLocationSummary{TotalApps: 2, DownCount: 1, UnavailableCount: 1, AvailabilityPercentage: availtest.Pct(0)},
		fra:       availtest.WireLocationSummary{TotalApps: 2, UpCount: 2, AvailabilityPercentage: availtest.Pct(100)},
		status:    status(2, 1, 1, availtest.Pct(66.67)),
		appErrors: map[string]string{"a": "no sample"},
	})

	fra.Close()
	prom.WaitForQuery(t, `up{job="fra"}`, promtest.SampleEquals(0))
	prom.WaitForQuery(t, `demo_up{app="c"}`, promtest.SampleCount(0))
	check("Frankfurt exporter gone", want{
		apps:   map[string]string{"a": "unavailable", "b": "down", "c": "unavailable", "fra-target": "down"},
		tlv:    availtest.WireLocationSummary{TotalApps: 2, DownCount: 1, UnavailableCount: 1, AvailabilityPercentage: availtest.Pct(0)},
		fra:    availtest.WireLocationSummary{TotalApps: 2, DownCount: 1, UnavailableCount: 1, AvailabilityPercentage: availtest.Pct(0)},
		status: status(0, 2, 2, availtest.Pct(0)),
	})

	tlv.Set("a", 1)
	tlv.Set("b", 1)
	prom.WaitForQuery(t, `demo_up == 1`, promtest.SampleCount(2))
	check("Tel Aviv back up", want{
		apps:   map[string]string{"a": "up", "b": "up", "c": "unavailable", "fra-target": "down"},
		tlv:    availtest.WireLocationSummary{TotalApps: 2, UpCount: 2, AvailabilityPercentage: availtest.Pct(100)},
		fra:    availtest.WireLocationSummary{TotalApps: 2, DownCount: 1, UnavailableCount: 1, AvailabilityPercentage: availtest.Pct(0)},
		status: status(2, 1, 1, availtest.Pct(66.67)),
	})
	// Run's first cycle, then the test's five.
	var hist []string
	for _, e := range api.App("b").History {
		hist = append(hist, e.Status)
	}
	if diff := cmp.Diff([]string{"up", "up", "down", "down", "down", "up"}, hist); diff != "" {
		t.Errorf("history of b (-want +got):\n%s", diff)
	}
}

// A backend that stops answering makes its apps unavailable and the
// system degraded, never down and never unhealthy; when it comes back the
// same Monitor recovers. With two backends, one down is "degraded".
func TestPrometheusBackendDown(t *testing.T) {
	t.Parallel() // each test has its own Prometheus; most of their time is waiting for scrapes
	exp := promtest.NewExporter(t)
	for _, app := range []string{"a", "b", "c"} {
		exp.Set(app, 1)
	}
	exp.Set("b", 0)
	prom1 := promtest.Start(t, promtest.Job("demo", exp.Target()))
	prom2 := promtest.Start(t, promtest.Job("demo", exp.Target()))
	b1, _ := availtest.PromBackend(t, "one", prom1)
	b2, _ := availtest.PromBackend(t, "two", prom2)
	m := availtest.NewMonitor(t, availmon.Options{
		Locations: availtest.TwoLocations,
		Apps: []availmon.App{
			{Name: "a", Location: "Tel Aviv", Metric: `demo_up{app="a"}`, Backend: "one"},
			{Name: "b", Location: "Tel Aviv", Metric: `demo_up{app="b"}`, Backend: "one"},
			{Name: "c", Location: "Frankfurt", Metric: `demo_up{app="c"}`, Backend: "two"},
		},
		Backends: []availmon.Backend{b1, b2},
	})
	api := availtest.ServeAPI(t, m)
	for _, p := range []*promtest.Server{prom1, prom2} {
		p.WaitForQuery(t, `demo_up`, promtest.SampleCount(3))
	}
	availtest.RunMonitor(t, m, api)

	type view struct {
		Apps   map[string]string
		Status availtest.WireStatus
		Health int
	}
	look := func() view {
		code, _ := api.Health()
		return view{Apps: api.AppStates(), Status: api.Status(), Health: code}
	}
	st := func(system, conn string, up, down, unavail int, avail *float64) availtest.WireStatus {
		return availtest.WireStatus{SystemStatus: system, OverallAvailability: avail, TotalApplications: 3,
			ApplicationsUp: up, ApplicationsDown: down, ApplicationsUnavailable: unavail, PrometheusConnectivity: conn}
	}
	healthy := view{
		Apps:   map[string]string{"a": "up", "b": "down", "c": "up"},
		Status: st("healthy", "connected", 2, 1, 0, availtest.Pct(66.67)),
		Health: http.StatusOK,
	}
	steps := []struct {
		name   string
		change func()
		want   view
	}{
		{"both answer", func() {}, healthy},
		{"backend two stopped", prom2.Stop, view{
			Apps:   map[string]string{"a": "up", "b": "down", "c": "unavailable"},
			Status: st("degraded", "degraded", 1, 1, 1, availtest.Pct(50)),
			Health: http.StatusOK,
		}},
		{"both stopped", prom1.Stop, view{
			Apps:   map[string]string{"a": "unavailable", "b": "unavailable", "c": "unavailable"},
			Status: st("degraded", "disconnected", 0, 0, 3, nil),
			Health: http.StatusOK,
		}},
		{"both restarted", func() {
			prom1.Restart()
			prom2.Restart()
			for _, p := range []*promtest.Server{prom1, prom2} {
				p.WaitForQuery(t, `demo_up`, promtest.SampleCount(3))
			}
		}, healthy},
	}
	for _, s := range steps {
		s.change()
		availtest.Scrape(t, m)
		if diff := cmp.Diff(s.want, look()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", s.name, diff)
		}
	}
	// The outage is in each app's history, with the reason.
	h := api.App("c").History
	if len(h) < 4 {
		t.Fatalf("history of c has %d entries, want at least 4", len(h))
	}
	out := h[len(h)-2]
	if out.Status != "unavailable" || !strings.Contains(out.Error, "connection refused") {
		t.Errorf("history of c during the outage = %+v, want unavailable with \"connection refused\"", out)
	}
}

// One invalid expression in a batch makes only its own app unavailable,
// with the backend's error; the others get their state from the same
// cycle, and later cycles do not pay for the bad expression again.
func TestPrometheusInvalidExpressionInBatch(t *testing.T) {
	t.Parallel() // each test has its own Prometheus; most of their time is waiting for scrapes
	exp := promtest.NewExporter(t)
	exp.Set("a", 1)
	exp.Set("b", 0)
	exp.Set("c", 1)
	prom := promtest.Start(t, promtest.Job("demo", exp.Target()))
	backend, ct := availtest.PromBackend(t, "main", prom)
	bad := []struct {
		name, metric, wantErr string
	}{
		// New refuses what the parser refuses: these fail only when the
		// server evaluates them, or parse here but not on an older server.
		{"bad-regex", `label_replace(demo_up, "x", "$1", "app", "(")`, "execution"},
		{"same-labelset", `label_replace(demo_up, "app", "same", "", "")`, "execution"},
		{"many-to-many", `demo_up * on() demo_up`, "execution"},
		{"newer-function", `histogram_avg(demo_up{app="a"})`, "bad_data"},
	}
	apps := []availmon.App{
		{Name: "a", Location: "Tel Aviv", Metric: `demo_up{app="a"}`},
		{Name: "b", Location: "Tel Aviv", Metric: `demo_up{app="b"}`},
		{Name: "c", Location: "Frankfurt", Metric: `demo_up{app="c"}`},
		// A comment must not swallow the rest of a combined query.
		{Name: "commented", Location: "Frankfurt", Metric: "demo_up{app=\"a\"} # the app's own health"},
		// A bad response_time_metric costs the app its response time only.
		{Name: "bad-rt", Location: "Frankfurt", Metric: `demo_up{app="c"}`, ResponseTimeMetric: `label_replace(demo_up, "x", "$1", "app", "(")`},
	}
	for _, b := range bad {
		apps = append(apps, availmon.App{Name: b.name, Location: "Tel Aviv", Metric: b.metric})
	}
	m := availtest.NewMonitor(t, availmon.Options{Locations: availtest.TwoLocations, Apps: apps, Backends: []availmon.Backend{backend}})
	api := availtest.ServeAPI(t, m)
	prom.WaitForQuery(t, `demo_up`, promtest.SampleCount(3))

	want := map[string]string{"a": "up", "b": "down", "c": "up", "commented": "up", "bad-rt": "up"}
	for _, b := range bad {
		want[b.name] = "unavailable"
	}
	for cycle := 1; cycle <= 3; cycle++ {
		before := ct.Requests.Load()
		availtest.Scrape(t, m)
		requests := ct.Requests.Load() - before
		if diff := cmp.Diff(want, api.AppStates()); diff != "" {
			t.Errorf("cycle %d: states (-want +got):\n%s", cycle, diff)
		}
		for _, b := range bad {
			h := api.App(b.name).History
			if len(h) != cycle {
				t.Fatalf("cycle %d: %s has %d history entries", cycle, b.name, len(h))
			}
			if last := h[len(h)-1]; !strings.Contains(last.Error, b.wantErr) {
				t.Errorf("cycle %d: %s history error = %q, want the backend's error (%q)", cycle, b.name, last.Error, b.wantErr)
			}
		}
		// Once the bad expressions are known, a cycle is one combined query
		// for the good apps, one query per bad expression, and two for the
		// app whose response-time expression is bad.
		if wantReq := int64(1 + len(bad) + 2); cycle > 1 && requests != wantReq {
			t.Errorf("cycle %d made %d requests, want %d", cycle, requests, wantReq)
		}
		t.Logf("cycle %d: %d requests", cycle, requests)
	}
	if rt := api.App("bad-rt").ResponseTime; rt == nil || *rt <= 0 || *rt > 10 {
		t.Errorf("bad-rt response_time = %v, want the query round trip", rt)
	}
}

// The value rulings against real query results: scalars, several samples,
// NaN, and response_time_metric.
func TestPrometheusValues(t *testing.T) {
	t.Parallel() // each test has its own Prometheus; most of their time is waiting for scrapes
	exp := promtest.NewExporter(t)
	exp.Set("m1", 1)
	exp.Set("m2", 1)
	exp.Set("nan", math.NaN())
	exp.Set("rt", 0.25)
	exp.Set("up", 1)
	prom := promtest.Start(t, promtest.Job("demo", exp.Target()))
	backend, _ := availtest.PromBackend(t, "main", prom)
	apps := []availmon.App{
		{Name: "scalar-1", Metric: `1`},
		{Name: "scalar-0", Metric: `0`},
		{Name: "vector-1", Metric: `vector(1)`},
		{Name: "vector-0", Metric: `vector(0)`},
		{Name: "no-data-as-down", Metric: `demo_up{app="none"} or vector(0)`},
		{Name: "no-data", Metric: `demo_up{app="none"}`},
		{Name: "several", Metric: `demo_up{app=~"m1|m2"}`},
		{Name: "nan", Metric: `demo_up{app="nan"}`},
		{Name: "bool", Metric: `sum(demo_up{app=~"m.*"}) > bool 1`},
		{Name: "with-rt", Metric: `demo_up{app="up"}`, ResponseTimeMetric: `demo_up{app="rt"}`},
		{Name: "scalar-rt", Metric: `demo_up{app="up"}`, ResponseTimeMetric: `0.5`},
	}
	for i := range apps {
		apps[i].Location = "Tel Aviv"
	}
	m := availtest.NewMonitor(t, availmon.Options{Locations: availtest.TwoLocations[:1], Apps: apps, Backends: []availmon.Backend{backend}})
	api := availtest.ServeAPI(t, m)
	prom.WaitForQuery(t, `demo_up`, promtest.SampleCount(5))

	type got struct {
		Status string
		RT     float64 // only compared when the test knows it
	}
	view := func(withRT map[string]bool) map[string]got {
		var body struct{ Data []availtest.WireApp }
		api.Get("/api/apps", &body)
		out := make(map[string]got)
		for _, a := range body.Data {
			g := got{Status: a.Status}
			if withRT[a.Name] && a.ResponseTime != nil {
				g.RT = *a.ResponseTime
			}
			out[a.Name] = g
		}
		return out
	}
	rtApps := map[string]bool{"with-rt": true, "scalar-rt": true}
	want := map[string]got{
		"scalar-1": {Status: "up"}, "scalar-0": {Status: "down"},
		"vector-1": {Status: "up"}, "vector-0": {Status: "down"},
		"no-data-as-down": {Status: "down"}, "no-data": {Status: "unavailable"},
		"several": {Status: "up"}, "nan": {Status: "unavailable"}, "bool": {Status: "up"},
		"with-rt": {Status: "up", RT: 0.25}, "scalar-rt": {Status: "up", RT: 0.5},
	}
	// Twice: the first cycle finds out which expressions cannot be
	// combined, the second runs with that knowledge.
	for cycle := 1; cycle <= 2; cycle++ {
		availtest.Scrape(t, m)
		if diff := cmp.Diff(want, view(rtApps)); diff != "" {
			t.Errorf("cycle %d (-want +got):\n%s", cycle, diff)
		}
	}
	if e := api.App("nan").Error; !strings.Contains(e, "NaN") {
		t.Errorf("nan: error %q, want it to mention NaN", e)
	}

	exp.Set("m2", 0)
	prom.WaitForQuery(t, `demo_up{app="m2"}`, promtest.SampleEquals(0))
	availtest.Scrape(t, m)
	want["several"] = got{Status: "down"}
	want["bool"] = got{Status: "down"}
	if diff := cmp.Diff(want, view(rtApps)); diff != "" {
		t.Errorf("one of several down (-want +got):\n%s", diff)
	}
}

// One bad expression among a full batch costs a few queries to find, not
// one query per app of the batch; the next cycle is two queries.
func TestPrometheusOneBadExpressionAmongMany(t *testing.T) {
	t.Parallel() // each test has its own Prometheus; most of their time is waiting for scrapes
	exp := promtest.NewExporter(t)
	exp.Set("a", 1)
	prom := promtest.Start(t, promtest.Job("demo", exp.Target()))
	backend, ct := availtest.PromBackend(t, "main", prom)
	apps := make([]availmon.App, promsource.BatchSize)
	want := make(map[string]string, len(apps))
	for i := range apps {
		apps[i] = availmon.App{Name: availtest.FmtApp(i), Location: "Tel Aviv", Metric: `demo_up{app="a"}`}
		want[availtest.FmtApp(i)] = "up"
	}
	apps[137].Metric = `label_replace(demo_up, "x", "$1", "app", "(")`
	want[availtest.FmtApp(137)] = "unavailable"
	m := availtest.NewMonitor(t, availmon.Options{Locations: availtest.TwoLocations, Apps: apps, Backends: []availmon.Backend{backend}})
	api := availtest.ServeAPI(t, m)
	prom.WaitForQuery(t, `demo_up{app="a"}`, promtest.SampleEquals(1))

	// Halving 200 apps down to the bad one: at most 2 queries a level over
	// ceil(log2(200)) = 8 levels, plus the first query and the bad app's own.
	limits := []int64{1 + 2*8 + 1, 2}
	for cycle, limit := range limits {
		before := ct.Requests.Load()
		availtest.Scrape(t, m)
		requests := ct.Requests.Load() - before
		t.Logf("cycle %d: %d requests", cycle+1, requests)
		if requests > limit {
			t.Errorf("cycle %d made %d requests, want at most %d", cycle+1, requests, limit)
		}
		if diff := cmp.Diff(want, api.AppStates()); diff != "" {
			t.Errorf("cycle %d: states (-want +got):\n%s", cycle+1, diff)
		}
	}
}

// A backend that hangs (the process frozen: connections accepted, nothing
// answered) costs its apps their state after the query timeout, and
// never holds up the other backend's apps; thawed, it recovers.
func TestPrometheusBackendHangs(t *testing.T) {
	t.Parallel() // each test has its own Prometheus; most of their time is waiting for scrapes
	exp := promtest.NewExporter(t)
	exp.Set("a", 1)
	exp.Set("b", 1)
	fast := promtest.Start(t, promtest.Job("demo", exp.Target()))
	hung := promtest.Start(t, promtest.Job("demo", exp.Target()))
	// The healthy backend gets a long timeout so that a machine busy with
	// other tests cannot make it time out too.
	const queryTimeout = time.Second
	backend := func(name string, srv *promtest.Server, timeout time.Duration) availmon.Backend {
		src, err := promsource.New(promsource.Options{
			Name: name, URL: srv.URL(), QueryTimeout: timeout,
		})
		if err != nil {
			t.Fatal(err)
		}
		return availmon.Backend{Name: name, URL: srv.URL(), Source: src, BatchSize: promsource.BatchSize}
	}
	m := availtest.NewMonitor(t, availmon.Options{
		Locations: availtest.TwoLocations,
		Apps: []availmon.App{
			{Name: "a", Location: "Tel Aviv", Metric: `demo_up{app="a"}`, Backend: "fast"},
			{Name: "b", Location: "Frankfurt", Metric: `demo_up{app="b"}`, Backend: "hung"},
		},
		Backends: []availmon.Backend{backend("fast", fast, 10*time.Second), backend("hung", hung, queryTimeout)},
		Timeout:  10 * time.Second,
	})
	api := availtest.ServeAPI(t, m)
	for _, p := range []*promtest.Server{fast, hung} {
		p.WaitForQuery(t, `demo_up`, promtest.SampleCount(2))
	}
	availtest.RunMonitor(t, m, api) // for a live loop; the test runs the cycles

	hung.Pause()
	start := time.Now()
	availtest.Scrape(t, m)
	took := time.Since(start)
	if diff := cmp.Diff(map[string]string{"a": "up", "b": "unavailable"}, api.AppStates()); diff != "" {
		t.Errorf("hung backend: states (-want +got):\n%s", diff)
	}
	if took < queryTimeout || took > 5*queryTimeout {
		t.Errorf("the cycle took %s; want about the hung backend's query timeout %s", took, queryTimeout)
	}
	if e := api.App("b").Error; !strings.Contains(e, "deadline exceeded") {
		t.Errorf("b: error %q, want a timeout", e)
	}
	if st := api.Status(); st.PrometheusConnectivity != "degraded" || st.SystemStatus != "degraded" {
		t.Errorf("status = %+v, want connectivity and system degraded", st)
	}

	hung.Resume()
	// Be sure the thawed server answers with the sample before the cycle.
	hung.WaitForQuery(t, `demo_up{app="b"}`, promtest.SampleEquals(1))
	availtest.Scrape(t, m)
	if diff := cmp.Diff(map[string]string{"a": "up", "b": "up"}, api.AppStates()); diff != "" {
		t.Errorf("thawed backend: states (-want +got):\n%s", diff)
	}
	if st := api.Status(); st.PrometheusConnectivity != "connected" {
		t.Errorf("connectivity %q after the thaw, want connected", st.PrometheusConnectivity)
	}
}
