package promtest_test

import (
	"context"
	"strings"
	"testing"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/availmon/availmon/internal/promtest"
)

// VictoriaMetrics, started like Prometheus: it scrapes real loopback
// targets, follows Set and Delete, answers the Prometheus query API, keeps
// its data across Stop and Restart, and reports its CPU time.
func TestVictoriaMetricsScrapesExporter(t *testing.T) {
	t.Parallel()
	a := promtest.NewExporter(t)
	a.Set("x", 1)
	a.Set("y", 0)
	srv := promtest.StartVictoriaMetrics(t, promtest.Job("a", a.Target()))
	if !strings.HasPrefix(srv.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL %q is not on loopback", srv.URL())
	}
	srv.WaitForTarget(t, a.Target(), v1.HealthGood)
	srv.WaitForQuery(t, `demo_up{app="x", job="a"}`, promtest.SampleEquals(1))
	srv.WaitForQuery(t, `demo_up{app="y", job="a"}`, promtest.SampleEquals(0))

	a.Set("x", 0)
	srv.WaitForQuery(t, `demo_up{app="x"}`, promtest.SampleEquals(0))
	a.Delete("x")
	srv.WaitForQuery(t, `demo_up{app="x"}`, promtest.SampleCount(0))

	if _, err := srv.CPUTime(); err != nil {
		t.Errorf("CPUTime: %v", err)
	}
	srv.Stop()
	if _, err := srv.Query(context.Background(), `demo_up`); err == nil {
		t.Error("a stopped server answered")
	}
	srv.Restart()
	srv.WaitForQuery(t, `demo_up{app="y"}`, promtest.SampleEquals(0))
}
