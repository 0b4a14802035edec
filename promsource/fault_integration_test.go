package promsource_test

import (
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
	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
	"github.com/availmon/availmon/promsource"
)

// These tests put a promtest.FaultProxy between availmon and a real
// Prometheus, and play the faults a misbehaving backend or a proxy in front
// of it produce.

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
	rig := availtest.NewFaultRig(t)
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
			apps := availtest.GoodApps(nApps)
			rm := rig.Monitor(availtest.MonitorSetup{Apps: apps, BatchSize: batch})
			if n := rm.Cycle(); n != batches {
				t.Fatalf("healthy cycle: %d requests, want %d", n, batches)
			}
			const fault_ = 2500 * time.Millisecond
			rig.Proxy.Inject(promtest.Rule{Fault: fault, For: fault_})
			end := time.Now().Add(fault_) // no earlier than the proxy's own end
			faulted, straddled := 0, 0
			for time.Now().Before(end) {
				n := rm.Cycle()
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
				if diff := cmp.Diff(availtest.AllStates(apps, "unavailable"), rm.API.AppStates()); diff != "" {
					t.Errorf("faulted cycle %d: states (-want +got):\n%s", faulted, diff)
				}
				if st := rm.API.Status(); st.SystemStatus != "degraded" || st.PrometheusConnectivity != "disconnected" {
					t.Errorf("faulted cycle %d: status %s, connectivity %s; want degraded, disconnected",
						faulted, st.SystemStatus, st.PrometheusConnectivity)
				}
				rm.CheckErrors("faulted cycle")
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
				rig.Prom.WaitForQuery(t, `demo_up{app="a"}`, promtest.SampleEquals(1))
				if n := rm.Cycle(); n != batches {
					t.Errorf("cycle %d after the fault: %d requests, want %d", cycle, n, batches)
				}
				if diff := cmp.Diff(availtest.AllStates(apps, "up"), rm.API.AppStates()); diff != "" {
					t.Errorf("cycle %d after the fault: states (-want +got):\n%s\napp errors: %v", cycle, diff, rm.API.AppErrors())
				}
				if st := rm.API.Status(); st.SystemStatus != "healthy" || st.PrometheusConnectivity != "connected" {
					t.Errorf("cycle %d after the fault: status %s, connectivity %s", cycle, st.SystemStatus, st.PrometheusConnectivity)
				}
			}
			logs := rm.Log.String()
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
	rig := availtest.NewFaultRig(t)
	const marker = `bad="yes"`
	for _, fault := range []promtest.Fault{
		promtest.BadData(`invalid parameter "query": 1:9: parse error: unexpected "}"`),
		promtest.Execution("invalid regular expression"),
		promtest.VictoriaMetrics422("cannot parse: " + strings.Repeat("x", 2000)),
	} {
		t.Run(fault.String(), func(t *testing.T) {
			apps := append(availtest.GoodApps(20), availmon.App{Name: "bad", Metric: `demo_up{` + marker + `}`})
			rm := rig.Monitor(availtest.MonitorSetup{Apps: apps, BatchSize: promsource.BatchSize})
			rig.Proxy.Inject(promtest.Rule{Fault: fault, Match: promtest.QueryContains(marker)})
			defer rig.Proxy.Clear()
			want := availtest.AllStates(apps, "up")
			want["bad"] = "unavailable"
			for cycle := 1; cycle <= 3; cycle++ {
				n := rm.Cycle()
				t.Logf("cycle %d: %d requests", cycle, n)
				if cycle > 1 && n != 2 {
					t.Errorf("cycle %d: %d requests, want 2 (the combined query and the bad app alone)", cycle, n)
				}
				if diff := cmp.Diff(want, rm.API.AppStates()); diff != "" {
					t.Errorf("cycle %d: states (-want +got):\n%s", cycle, diff)
				}
				if st := rm.API.Status(); st.PrometheusConnectivity != "connected" || st.SystemStatus != "healthy" {
					t.Errorf("cycle %d: status %s, connectivity %s", cycle, st.SystemStatus, st.PrometheusConnectivity)
				}
				rm.CheckErrors("bad expression")
			}
			if e := rm.API.App("bad").Error; e == "" {
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
	rig := availtest.NewFaultRig(t)
	clock := &fakeClock{now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	const marker = `solo!="x"`
	apps := append(availtest.GoodApps(4), availmon.App{Name: "failing", Metric: `demo_up{app="a",` + marker + `}`},
		availmon.App{Name: "scalar", Metric: `1`})
	rig.Proxy.Inject(promtest.Rule{Fault: promtest.Execution("storage is down for this series"), Match: promtest.QueryContains(marker)})
	defer rig.Proxy.Clear()
	rm := rig.Monitor(availtest.MonitorSetup{Apps: apps, BatchSize: promsource.BatchSize,
		Source: promsource.Options{Clock: clock}})
	want := availtest.AllStates(apps, "up")
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
		n := rm.Cycle()
		if s.want == again && n <= 2 || s.want != again && n != s.want {
			t.Errorf("step %d (+%s): %d requests, want %d (-1: more than 2)", i, s.advance, n, s.want)
		}
		if diff := cmp.Diff(want, rm.API.AppStates()); diff != "" {
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
	rig := availtest.NewFaultRig(t)
	apps := availtest.GoodApps(10)
	const limit = 4 << 20
	rm := rig.Monitor(availtest.MonitorSetup{Apps: apps, BatchSize: promsource.BatchSize,
		Source: promsource.Options{MaxResponseBytes: limit}})

	rig.Proxy.Inject(promtest.Rule{Fault: promtest.HugeVector(100 << 20)})
	before := rig.Proxy.BytesSent()
	rm.Cycle()
	sent := rig.Proxy.BytesSent() - before
	t.Logf("the proxy wrote %d bytes of a 100 MB answer with a %d-byte limit", sent, limit)
	if sent > limit+32<<20 {
		t.Errorf("the proxy wrote %d bytes; availmon read on past its %d-byte limit", sent, limit)
	}
	if diff := cmp.Diff(availtest.AllStates(apps, "unavailable"), rm.API.AppStates()); diff != "" {
		t.Errorf("huge answer: states (-want +got):\n%s", diff)
	}
	if e := rm.API.App(availtest.FmtApp(0)).Error; !strings.Contains(e, "answer too large") {
		t.Errorf("huge answer: error %q, want it to say the answer was too large", e)
	}
	rm.CheckErrors("huge answer")

	const timeout = time.Second
	rmt := rig.Monitor(availtest.MonitorSetup{Apps: availtest.GoodApps(3), BatchSize: promsource.BatchSize, Timeout: timeout})
	rig.Proxy.Inject(promtest.Rule{Fault: promtest.Trickle(100 * time.Millisecond)})
	start := time.Now()
	rmt.Cycle()
	if took := time.Since(start); took > 10*timeout {
		t.Errorf("trickling answer: the cycle took %s with a %s timeout", took, timeout)
	}
	if e := rmt.API.App(availtest.FmtApp(0)).Error; !strings.Contains(e, "deadline exceeded") {
		t.Errorf("trickling answer: error %q, want the deadline", e)
	}
	rig.Proxy.Clear()
	rmt.Cycle()
	if diff := cmp.Diff(availtest.AllStates(availtest.GoodApps(3), "up"), rmt.API.AppStates()); diff != "" {
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
	rig := availtest.NewFaultRig(t)
	apps := append(availtest.GoodApps(20), availmon.App{Name: "bad", Metric: `demo_up{bad="yes"}`})
	rm := rig.Monitor(availtest.MonitorSetup{Apps: apps, BatchSize: promsource.BatchSize})
	rig.Proxy.Inject(promtest.Rule{Fault: promtest.BadData(`invalid parameter "query": parse error`),
		Match: promtest.QueryContains(`bad="yes"`)})
	check := func(step string, wantFailedAll bool) {
		t.Helper()
		obs0, fail0 := scrapeCounts(t, rm.Reg, "main")
		req0, faulted0 := rig.Proxy.Requests(), rig.Proxy.Faulted()
		availtest.Scrape(t, rm.M)
		obs1, fail1 := scrapeCounts(t, rm.Reg, "main")
		requests, faulted := rig.Proxy.Requests()-req0, rig.Proxy.Faulted()-faulted0
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
	rig.Proxy.Inject(promtest.Rule{Fault: promtest.Status(http.StatusServiceUnavailable)})
	check("every request 503", true)
	rig.Proxy.Inject(promtest.Rule{Fault: promtest.HugeVector(20 << 20)})
	rmSmall := rig.Monitor(availtest.MonitorSetup{Apps: availtest.GoodApps(2), BatchSize: promsource.BatchSize,
		Source: promsource.Options{MaxResponseBytes: 1 << 20}})
	obs0, fail0 := scrapeCounts(t, rmSmall.Reg, "main")
	n := rmSmall.Cycle()
	obs1, fail1 := scrapeCounts(t, rmSmall.Reg, "main")
	if int64(obs1-obs0) != n || int64(fail1-fail0) != n {
		t.Errorf("answers too large: %d observations and %d errors for %d requests", obs1-obs0, fail1-fail0, n)
	}
	rig.Proxy.Clear()
}
