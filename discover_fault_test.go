package availmon_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
	"github.com/availmon/availmon/promsource"
)

// wireDiscoveryStatus is /api/status's discovery member.
type wireDiscoveryStatus struct {
	Status       string `json:"status"`
	Rules        int    `json:"rules"`
	FailingRules []struct {
		Rule    string `json:"rule"`
		Backend string `json:"backend"`
		Error   string `json:"error"`
	} `json:"failing_rules"`
}

// discoveryStatus reads the members of /api/status that discovery sets.
func discoveryStatus(c *availtest.API) (system, connectivity string, d *wireDiscoveryStatus) {
	var body struct {
		Data struct {
			SystemStatus           string               `json:"system_status"`
			PrometheusConnectivity string               `json:"prometheus_connectivity"`
			Discovery              *wireDiscoveryStatus `json:"discovery"`
		}
	}
	c.Get("/api/status", &body)
	return body.Data.SystemStatus, body.Data.PrometheusConnectivity, body.Data.Discovery
}

// A discovery query that times out (a proxy holding it open) or fails (an
// error envelope), on a backend that answers the listed app: the rule's
// apps are unavailable, system_status is degraded and the discovery member
// names the rule while prometheus_connectivity stays connected; the log
// says it once when it starts and once when it ends; when the proxy heals,
// all is healthy again.
func TestDiscoveryQueryFault(t *testing.T) {
	t.Parallel()
	rig := availtest.NewFaultRig(t)
	const ruleQuery = `demo_up`
	for _, fault := range []promtest.Fault{promtest.Hang(), promtest.Execution("query processing would load too many samples")} {
		t.Run(fault.String(), func(t *testing.T) {
			rm := rig.Monitor(availtest.MonitorSetup{
				Apps:      availtest.GoodApps(1),
				Source:    promsource.Options{QueryTimeout: 500 * time.Millisecond},
				Locations: []availmon.Location{{Name: "Tel Aviv", Match: []string{"demo"}}},
				Discover: []availmon.DiscoveryRule{{Name: "demo-apps", Query: ruleQuery, AppName: "svc-{{ .app }}",
					LocationLabel: "job"}},
			})
			healthy := func(step string) {
				t.Helper()
				rig.Prom.WaitForQuery(t, `demo_up{app="a"}`, promtest.SampleEquals(1))
				rm.Cycle()
				want := map[string]string{availtest.FmtApp(0): "up", "svc-a": "up"}
				if d := cmp.Diff(want, rm.API.AppStates()); d != "" {
					t.Errorf("%s: states (-want +got):\n%s", step, d)
				}
				sys, conn, d := discoveryStatus(rm.API)
				if sys != "healthy" || conn != "connected" || d == nil || d.Status != "ok" || d.Rules != 1 || len(d.FailingRules) != 0 {
					t.Errorf("%s: system_status %s, connectivity %s, discovery %+v", step, sys, conn, d)
				}
			}
			healthy("before the fault")

			rig.Proxy.Inject(promtest.Rule{Fault: fault, Match: func(q string) bool { return q == ruleQuery }})
			const faulted = 4
			for range faulted {
				rm.Cycle()
			}
			want := map[string]string{availtest.FmtApp(0): "up", "svc-a": "unavailable"}
			if d := cmp.Diff(want, rm.API.AppStates()); d != "" {
				t.Errorf("faulted: states (-want +got):\n%s", d)
			}
			sys, conn, d := discoveryStatus(rm.API)
			if sys != "degraded" || conn != "connected" {
				t.Errorf("faulted: system_status %s, connectivity %s; want degraded, connected", sys, conn)
			}
			if d == nil || d.Status != "failing" || len(d.FailingRules) != 1 || d.FailingRules[0].Rule != "demo-apps" ||
				d.FailingRules[0].Backend != "main" || d.FailingRules[0].Error == "" {
				t.Errorf("faulted: discovery %+v, want the rule demo-apps failing with its error", d)
			}

			rig.Proxy.Clear()
			healthy("after the fault")
			logs := rm.Log.String()
			if n := strings.Count(logs, `msg="discovery query failed; its apps are unavailable until it answers" rule=demo-apps`); n != 1 {
				t.Errorf("%d lines for the failure starting, want 1:\n%s", n, logs)
			}
			if n := strings.Count(logs, `msg="discovery query answering again" rule=demo-apps failed_cycles=4`); n != 1 {
				t.Errorf("%d lines for the failure ending after 4 cycles, want 1:\n%s", n, logs)
			}
			if n := strings.Count(logs, "level=WARN"); n != 1 {
				t.Errorf("%d warnings, want 1:\n%s", n, logs)
			}
		})
	}
}
