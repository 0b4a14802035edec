package availmon_test

import (
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/promtest"
	"github.com/availmon/availmon/promsource"
)

// These tests put a promtest.FaultProxy between availmon and a real
// Prometheus, and play the faults a misbehaving backend or a proxy in front
// of it produce.

// faultRig is a Prometheus with one exporter (demo_up{app="a"} is 1), a
// fault proxy in front of it, and a Monitor reading through the proxy.
type faultRig struct {
	t     *testing.T
	prom  *promtest.Server
	proxy *promtest.FaultProxy
}

func newFaultRig(t *testing.T) *faultRig {
	exp := promtest.NewExporter(t)
	exp.Set("a", 1)
	prom := promtest.Start(t, promtest.Job("demo", exp.Target()))
	prom.WaitForQuery(t, `demo_up{app="a"}`, promtest.SampleEquals(1))
	return &faultRig{t: t, prom: prom, proxy: promtest.NewFaultProxy(t, prom.URL())}
}

// monitorSetup says how to build one monitor of a rig.
type monitorSetup struct {
	apps      []availmon.App
	batchSize int
	source    promsource.Options // Name and URL are filled in
	timeout   time.Duration
	locations []availmon.Location // default: Tel Aviv, where every app is
	discover  []availmon.DiscoveryRule
}

type rigMonitor struct {
	*faultRig
	m   *availmon.Monitor
	api *apiClient
	reg *prometheus.Registry
	log *promtest.SyncBuffer
}

// goodApps returns n apps whose expressions are up and combinable.
func goodApps(n int) []availmon.App {
	apps := make([]availmon.App, n)
	for i := range apps {
		// Distinct expressions: verdicts are kept per expression.
		apps[i] = availmon.App{Name: fmtApp(i), Location: "Tel Aviv", Metric: `demo_up{app="a"} + ` + strings.Repeat("0*", i) + `0`}
	}
	return apps
}

func (r *faultRig) monitor(s monitorSetup) *rigMonitor {
	r.t.Helper()
	o := s.source
	o.Name, o.URL = "main", r.proxy.URL()
	if o.QueryTimeout == 0 {
		o.QueryTimeout = 10 * time.Second
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	r.t.Cleanup(tr.CloseIdleConnections)
	o.RoundTripper = tr
	src, err := promsource.New(o)
	if err != nil {
		r.t.Fatal(err)
	}
	for i := range s.apps {
		s.apps[i].Location = "Tel Aviv"
	}
	if s.locations == nil {
		s.locations = twoLocations[:1]
	}
	rm := &rigMonitor{faultRig: r, reg: prometheus.NewRegistry(), log: &promtest.SyncBuffer{}}
	rm.m = newMonitor(r.t, availmon.Options{
		Locations:  s.locations,
		Apps:       s.apps,
		Discover:   s.discover,
		Backends:   []availmon.Backend{{Name: "main", URL: r.proxy.URL(), Source: src, BatchSize: s.batchSize}},
		Timeout:    cmpOr(s.timeout, 20*time.Second),
		Registerer: rm.reg,
		Logger:     slog.New(slog.NewTextHandler(rm.log, nil)),
	})
	rm.api = serveAPI(r.t, rm.m)
	runMonitor(r.t, rm.m, rm.api) // a live loop, for system_status; the test runs the cycles
	return rm
}

func cmpOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// cycle runs one cycle and returns the requests that reached the proxy.
func (rm *rigMonitor) cycle() int64 {
	rm.t.Helper()
	before := rm.proxy.Requests()
	scrape(rm.t, rm.m)
	return rm.proxy.Requests() - before
}

// checkErrors fails the test for an app error that is longer than 512
// bytes or holds a combined query or another app's expression.
func (rm *rigMonitor) checkErrors(step string) {
	rm.t.Helper()
	checkAppErrors(rm.t, rm.api, step)
}

func checkAppErrors(t *testing.T, api *apiClient, step string) {
	t.Helper()
	var body struct{ Data []wireApp }
	api.get("/api/apps", &body)
	for _, a := range body.Data {
		// An app's own expression may use label_replace; combined
		// queries do too.
		combined := strings.Contains(a.Error, "label_replace") && !strings.Contains(a.Metric, "label_replace")
		bad := len(a.Error) > 512 || strings.Contains(a.Error, "availmon_") || combined
		for _, other := range body.Data {
			bad = bad || other.Name != a.Name && strings.Contains(a.Error, other.Metric)
		}
		if bad {
			t.Errorf("%s: app %s error (%d bytes) is too long or holds a combined query: %.200q", step, a.Name, len(a.Error), a.Error)
		}
	}
}

func allStates(apps []availmon.App, status string) map[string]string {
	out := make(map[string]string, len(apps))
	for _, a := range apps {
		out[a.Name] = status
	}
	return out
}

// A fault of 2.5 s that fails every query (a wrong result type, an error
// envelope of any kind, a 5xx) costs the cycles it happens in and nothing
// more: during it the apps are unavailable, the backend is not connected
// and a cycle costs at most two requests per batch (the combined query and
// a trivial one to tell a server failure from a bad expression); the
// backend is logged when its failures start and when it answers again
// (with the count of failed cycles), not once per cycle or batch;
// afterwards each cycle is back to one query per batch and every app is up.
func TestPrometheusTransientFault(t *testing.T) {
	t.Parallel()
	rig := newFaultRig(t)
	const nApps, batch = 20, 10
	const batches = nApps / batch
	for _, fault := range []promtest.Fault{
		promtest.Matrix(),
		promtest.Scalar(),
		promtest.Execution("unexpected error: storage is down"),
		promtest.VictoriaMetrics422("cannot execute query: " + strings.Repeat("x", 20000)),
		promtest.BadData("invalid parameter \"query\": 1:1: parse error"),
		promtest.Status(http.StatusBadGateway),
	} {
		t.Run(fault.String(), func(t *testing.T) {
			apps := goodApps(nApps)
			rm := rig.monitor(monitorSetup{apps: apps, batchSize: batch})
			if n := rm.cycle(); n != batches {
				t.Fatalf("healthy cycle: %d requests, want %d", n, batches)
			}
			const fault_ = 2500 * time.Millisecond
			rig.proxy.Inject(promtest.Rule{Fault: fault, For: fault_})
			end := time.Now().Add(fault_) // no earlier than the proxy's own end
			faulted, straddled := 0, 0
			for time.Now().Before(end) {
				n := rm.cycle()
				if time.Now().After(end) {
					// The fault may have ended during this cycle: no
					// assertion holds for it.
					straddled++
					break
				}
				faulted++
				if n > 2*batches {
					t.Errorf("faulted cycle %d: %d requests, want at most %d", faulted, n, 2*batches)
				}
				if diff := cmp.Diff(allStates(apps, "unavailable"), rm.api.appStates()); diff != "" {
					t.Errorf("faulted cycle %d: states (-want +got):\n%s", faulted, diff)
				}
				if st := rm.api.status(); st.SystemStatus != "degraded" || st.PrometheusConnectivity != "disconnected" {
					t.Errorf("faulted cycle %d: status %s, connectivity %s; want degraded, disconnected",
						faulted, st.SystemStatus, st.PrometheusConnectivity)
				}
				rm.checkErrors("faulted cycle")
				time.Sleep(100 * time.Millisecond) // a few cycles, not hundreds
			}
			for time.Now().Before(end) {
				time.Sleep(50 * time.Millisecond)
			}
			if faulted == 0 {
				t.Fatal("no cycle ran within the fault")
			}
			for cycle := 1; cycle <= 2; cycle++ {
				// Prometheus's own scrape of the exporter can time out on a
				// loaded machine (-race, parallel tests), and the series is
				// then stale for a moment: every app would rightly be
				// unavailable, which is not what this test is about.
				rig.prom.WaitForQuery(t, `demo_up{app="a"}`, promtest.SampleEquals(1))
				if n := rm.cycle(); n != batches {
					t.Errorf("cycle %d after the fault: %d requests, want %d", cycle, n, batches)
				}
				if diff := cmp.Diff(allStates(apps, "up"), rm.api.appStates()); diff != "" {
					t.Errorf("cycle %d after the fault: states (-want +got):\n%s\napp errors: %v", cycle, diff, rm.api.appErrors())
				}
				if st := rm.api.status(); st.SystemStatus != "healthy" || st.PrometheusConnectivity != "connected" {
					t.Errorf("cycle %d after the fault: status %s, connectivity %s", cycle, st.SystemStatus, st.PrometheusConnectivity)
				}
			}
			logs := rm.log.String()
			if logged := strings.Count(logs, "backend check failed"); logged != 1 {
				t.Errorf("%d faulted cycles logged %d failures, want one when they started:\n%s", faulted, logged, logs)
			}
			m := regexp.MustCompile(`msg="backend answering again" backend=main failed_cycles=(\d+) `).FindAllStringSubmatch(logs, -1)
			if len(m) != 1 {
				t.Fatalf("%d lines for the backend answering again, want one:\n%s", len(m), logs)
			}
			if n, _ := strconv.Atoi(m[0][1]); n < faulted || n > faulted+straddled {
				t.Errorf("backend answering again after failed_cycles=%d, want the %d faulted cycles (+%d straddling the end)", n, faulted, straddled)
			}
		})
	}
}

// A bad expression is found and asked on its own whatever kind of backend
// refuses it: Prometheus's 400 bad_data, a 422 execution error, or
// VictoriaMetrics' 422 {"errorType":"422"} with a message quoting the whole
// query. The other apps stay up, the backend connected, the bad app's error
// is its own and at most 512 bytes, and the next cycle is two queries.
func TestPrometheusBadExpressionByBackendKind(t *testing.T) {
	t.Parallel()
	rig := newFaultRig(t)
	const marker = `bad="yes"`
	for _, fault := range []promtest.Fault{
		promtest.BadData(`invalid parameter "query": 1:9: parse error: unexpected "}"`),
		promtest.Execution("invalid regular expression"),
		promtest.VictoriaMetrics422("cannot parse: " + strings.Repeat("x", 2000)),
	} {
		t.Run(fault.String(), func(t *testing.T) {
			apps := append(goodApps(20), availmon.App{Name: "bad", Metric: `demo_up{` + marker + `}`})
			rm := rig.monitor(monitorSetup{apps: apps, batchSize: promsource.BatchSize})
			rig.proxy.Inject(promtest.Rule{Fault: fault, Match: promtest.QueryContains(marker)})
			defer rig.proxy.Clear()
			want := allStates(apps, "up")
			want["bad"] = "unavailable"
			for cycle := 1; cycle <= 3; cycle++ {
				n := rm.cycle()
				t.Logf("cycle %d: %d requests", cycle, n)
				if cycle > 1 && n != 2 {
					t.Errorf("cycle %d: %d requests, want 2 (the combined query and the bad app alone)", cycle, n)
				}
				if diff := cmp.Diff(want, rm.api.appStates()); diff != "" {
					t.Errorf("cycle %d: states (-want +got):\n%s", cycle, diff)
				}
				if st := rm.api.status(); st.PrometheusConnectivity != "connected" || st.SystemStatus != "healthy" {
					t.Errorf("cycle %d: status %s, connectivity %s", cycle, st.SystemStatus, st.PrometheusConnectivity)
				}
				rm.checkErrors("bad expression")
			}
			if e := rm.api.app("bad").Error; e == "" {
				t.Error("the bad app has no error")
			}
		})
	}
}

// fakeClock is a Clock a test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// An expression found not combinable (here one the server fails to
// evaluate) is asked alone for an hour, then tried in the combined query
// again, so that a fixed backend or expression heals. (A scalar is no
// longer such an expression: combined queries wrap it in vector().)
func TestPrometheusSoloVerdictExpires(t *testing.T) {
	t.Parallel()
	rig := newFaultRig(t)
	clock := &fakeClock{now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	const marker = `solo!="x"`
	apps := append(goodApps(4), availmon.App{Name: "failing", Metric: `demo_up{app="a",` + marker + `}`},
		availmon.App{Name: "scalar", Metric: `1`})
	rig.proxy.Inject(promtest.Rule{Fault: promtest.Execution("storage is down for this series"), Match: promtest.QueryContains(marker)})
	defer rig.proxy.Clear()
	rm := rig.monitor(monitorSetup{apps: apps, batchSize: promsource.BatchSize,
		source: promsource.Options{Clock: clock}})
	want := allStates(apps, "up")
	want["failing"] = "unavailable"
	// Run's first cycle found the failing expression by halving the batch.
	const again = -1 // more than 2: the halving again
	steps := []struct {
		advance time.Duration
		want    int64
	}{
		{0, 2},                   // the combined query (with the scalar) and the failing one alone
		{59 * time.Minute, 2},    // still within the hour
		{2 * time.Minute, again}, // the verdict expired: tried combined, found again
		{0, 2},
	}
	for i, s := range steps {
		clock.Add(s.advance)
		n := rm.cycle()
		if s.want == again && n <= 2 || s.want != again && n != s.want {
			t.Errorf("step %d (+%s): %d requests, want %d (-1: more than 2)", i, s.advance, n, s.want)
		}
		if diff := cmp.Diff(want, rm.api.appStates()); diff != "" {
			t.Errorf("step %d: states (-want +got):\n%s", i, diff)
		}
	}
}

// A 100 MB answer is read no further than max_response_bytes: the apps are
// unavailable with an error that says the answer was too large, and the
// proxy could write little more than the limit (plus the kernel's socket
// buffers) before availmon hung up. A trickling answer is cut at the
// cycle's deadline.
func TestPrometheusAnswerBounded(t *testing.T) {
	t.Parallel()
	rig := newFaultRig(t)
	apps := goodApps(10)
	const limit = 4 << 20
	rm := rig.monitor(monitorSetup{apps: apps, batchSize: promsource.BatchSize,
		source: promsource.Options{MaxResponseBytes: limit}})

	rig.proxy.Inject(promtest.Rule{Fault: promtest.HugeVector(100 << 20)})
	before := rig.proxy.BytesSent()
	rm.cycle()
	sent := rig.proxy.BytesSent() - before
	t.Logf("the proxy wrote %d bytes of a 100 MB answer with a %d-byte limit", sent, limit)
	if sent > limit+32<<20 {
		t.Errorf("the proxy wrote %d bytes; availmon read on past its %d-byte limit", sent, limit)
	}
	if diff := cmp.Diff(allStates(apps, "unavailable"), rm.api.appStates()); diff != "" {
		t.Errorf("huge answer: states (-want +got):\n%s", diff)
	}
	if e := rm.api.app(fmtApp(0)).Error; !strings.Contains(e, "answer too large") {
		t.Errorf("huge answer: error %q, want it to say the answer was too large", e)
	}
	rm.checkErrors("huge answer")

	const timeout = time.Second
	rmt := rig.monitor(monitorSetup{apps: goodApps(3), batchSize: promsource.BatchSize, timeout: timeout})
	rig.proxy.Inject(promtest.Rule{Fault: promtest.Trickle(100 * time.Millisecond)})
	start := time.Now()
	rmt.cycle()
	if took := time.Since(start); took > 10*timeout {
		t.Errorf("trickling answer: the cycle took %s with a %s timeout", took, timeout)
	}
	if e := rmt.api.app(fmtApp(0)).Error; !strings.Contains(e, "deadline exceeded") {
		t.Errorf("trickling answer: error %q, want the deadline", e)
	}
	rig.proxy.Clear()
	rmt.cycle()
	if diff := cmp.Diff(allStates(goodApps(3), "up"), rmt.api.appStates()); diff != "" {
		t.Errorf("after the trickle: states (-want +got):\n%s", diff)
	}
}

// scrapeCounts reads availmon_scrape_duration_seconds' observation count
// and availmon_scrape_errors_total for target.
func scrapeCounts(t *testing.T, reg *prometheus.Registry, target string) (observed, failed uint64) {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			if !hasLabel(m, "target", target) {
				continue
			}
			switch mf.GetName() {
			case "availmon_scrape_duration_seconds":
				observed = m.GetHistogram().GetSampleCount()
			case "availmon_scrape_errors_total":
				failed = uint64(m.GetCounter().GetValue())
			}
		}
	}
	return observed, failed
}

func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

// Every HTTP request to a backend is one observation of
// availmon_scrape_duration_seconds, and every failed one (an error status,
// a connection or read error) counts in availmon_scrape_errors_total: a
// cycle that halves its batch and asks apps alone is counted request by
// request.
func TestPrometheusEveryRequestObserved(t *testing.T) {
	t.Parallel()
	rig := newFaultRig(t)
	apps := append(goodApps(20), availmon.App{Name: "bad", Metric: `demo_up{bad="yes"}`})
	rm := rig.monitor(monitorSetup{apps: apps, batchSize: promsource.BatchSize})
	rig.proxy.Inject(promtest.Rule{Fault: promtest.BadData(`invalid parameter "query": parse error`),
		Match: promtest.QueryContains(`bad="yes"`)})
	check := func(step string, wantFailedAll bool) {
		t.Helper()
		obs0, fail0 := scrapeCounts(t, rm.reg, "main")
		req0, faulted0 := rig.proxy.Requests(), rig.proxy.Faulted()
		scrape(t, rm.m)
		obs1, fail1 := scrapeCounts(t, rm.reg, "main")
		requests, faulted := rig.proxy.Requests()-req0, rig.proxy.Faulted()-faulted0
		if wantFailedAll {
			faulted = requests
		}
		t.Logf("%s: %d requests, %d failed", step, requests, faulted)
		if int64(obs1-obs0) != requests || int64(fail1-fail0) != faulted {
			t.Errorf("%s: %d observations and %d errors for %d requests of which %d failed",
				step, obs1-obs0, fail1-fail0, requests, faulted)
		}
	}
	check("halving cycle", false)
	check("next cycle", false)
	rig.proxy.Inject(promtest.Rule{Fault: promtest.Status(http.StatusServiceUnavailable)})
	check("every request 503", true)
	rig.proxy.Inject(promtest.Rule{Fault: promtest.HugeVector(20 << 20)})
	rmSmall := rig.monitor(monitorSetup{apps: goodApps(2), batchSize: promsource.BatchSize,
		source: promsource.Options{MaxResponseBytes: 1 << 20}})
	obs0, fail0 := scrapeCounts(t, rmSmall.reg, "main")
	n := rmSmall.cycle()
	obs1, fail1 := scrapeCounts(t, rmSmall.reg, "main")
	if int64(obs1-obs0) != n || int64(fail1-fail0) != n {
		t.Errorf("answers too large: %d observations and %d errors for %d requests", obs1-obs0, fail1-fail0, n)
	}
	rig.proxy.Clear()
}
