package promsource_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
	"github.com/availmon/availmon/promsource"
)

// A real VictoriaMetrics refuses an expression it cannot evaluate with
// 422 {"errorType":"422"} and a message that quotes the whole query. The
// expression is found and asked alone; the others stay up and the backend
// connected; no app's error holds the combined query or another app's
// expression, and the bad app's own error is at most 512 bytes. The
// requests go through a FaultProxy (passing everything) that counts them:
// VictoriaMetrics answers fast enough to have raced a proxy that streamed
// the request body.
func TestVictoriaMetricsBadExpression(t *testing.T) {
	t.Parallel()
	exp := promtest.NewExporter(t)
	exp.Set("a", 1)
	vm := promtest.StartVictoriaMetrics(t, promtest.Job("demo", exp.Target()))
	vm.WaitForQuery(t, `demo_up{app="a"}`, promtest.SampleEquals(1))
	rig := &availtest.FaultRig{T: t, Prom: vm, Proxy: promtest.NewFaultProxy(t, vm.URL())}
	// Valid PromQL that VictoriaMetrics cannot evaluate (a bad regular
	// expression), long enough for its message to pass 512 bytes.
	apps := append(availtest.GoodApps(20), availmon.App{Name: "bad",
		Metric: `label_replace(demo_up{app="a"} + ` + strings.Repeat("0*", 200) + `0, "x", "$1", "app", "(")`})
	rm := rig.Monitor(availtest.MonitorSetup{Apps: apps, BatchSize: promsource.BatchSize})
	want := availtest.AllStates(apps, "up")
	want["bad"] = "unavailable"
	// Run's first cycle found the bad expression; many more cycles show
	// that no answer is cut short on the way.
	for cycle := 1; cycle <= 10; cycle++ {
		if n := rm.Cycle(); n != 2 {
			t.Errorf("cycle %d: %d requests, want 2 (the combined query and the bad app alone)", cycle, n)
		}
		if diff := cmp.Diff(want, rm.API.AppStates()); diff != "" {
			t.Errorf("cycle %d: states (-want +got):\n%s", cycle, diff)
		}
		if st := rm.API.Status(); st.PrometheusConnectivity != "connected" || st.SystemStatus != "healthy" {
			t.Errorf("cycle %d: status %s, connectivity %s", cycle, st.SystemStatus, st.PrometheusConnectivity)
		}
		rm.CheckErrors("victoria-metrics")
	}
	if e := rm.API.App("bad").Error; !strings.Contains(e, "422") {
		t.Errorf("bad app error %q, want VictoriaMetrics' 422", e)
	}
}
