package availmon_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
)

func newMetricsMonitor(t *testing.T, reg prometheus.Registerer) *availmon.Monitor {
	t.Helper()
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818}},
		Apps: []availmon.App{
			{Name: "checkout", Location: "Tel Aviv"},
			{Name: "search", Location: "Tel Aviv"},
			{Name: "billing", Location: "Tel Aviv"},
		},
		Source: availmon.SourceFunc(func(ctx context.Context, app availmon.App) availmon.Result {
			switch app.Name {
			case "checkout":
				return availmon.Result{Status: availmon.StatusUp}
			case "search":
				return availmon.Result{Status: availmon.StatusDown}
			}
			return availmon.Result{Status: availmon.StatusUnavailable}
		}),
		Clock:      availmontest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)),
		Registerer: reg,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Scrape(context.Background()); err != nil {
		t.Fatal(err)
	}
	return m
}

func get(t *testing.T, h http.Handler, target string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	return rec
}

// Request paths never become label values: an unknown app is counted under
// its route pattern and an unknown path under one fixed label.
func TestHTTPRequestsTotalIsBounded(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := newMetricsMonitor(t, reg)
	h := m.Handler()
	// Without Run, /health answers 503.
	for _, target := range []string{"/api/apps/does-not-exist", "/no/such/path", "/api/apps/checkout", "/health"} {
		get(t, h, target)
	}
	req := httptest.NewRequest("BREW", "/api/apps", nil)
	h.ServeHTTP(httptest.NewRecorder(), req)

	want := `
# HELP http_requests_total Total HTTP requests served, by method, route pattern and status code.
# TYPE http_requests_total counter
http_requests_total{method="GET",path="/api/apps/{name}",status="200"} 1
http_requests_total{method="GET",path="/api/apps/{name}",status="404"} 1
http_requests_total{method="GET",path="/health",status="503"} 1
http_requests_total{method="GET",path="unmatched",status="404"} 1
http_requests_total{method="other",path="unmatched",status="405"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "http_requests_total"); err != nil {
		t.Error(err)
	}
}

// /metrics serves the monitor's families, with availmon_up following the
// apps' states and unavailable apps left out.
func TestMetricsEndpoint(t *testing.T) {
	m := newMetricsMonitor(t, nil)
	rec := get(t, m.Handler(), "/metrics")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: status %d", rec.Code)
	}
	body, _ := io.ReadAll(rec.Body)
	for _, line := range []string{
		`availmon_up{app="checkout",location="Tel Aviv"} 1`,
		`availmon_up{app="search",location="Tel Aviv"} 0`,
		`availmon_apps{status="unavailable"} 1`,
		`availmon_unavailable{app="billing",backend="default",location="Tel Aviv"} 1`,
		`availmon_scrape_interval_seconds 30`,
		`# TYPE availmon_scrape_duration_seconds histogram`,
		`availmon_scrape_errors_total{target="default"} 0`,
	} {
		if !strings.Contains(string(body), line+"\n") {
			t.Errorf("/metrics lacks %q", line)
		}
	}
	if strings.Contains(string(body), `availmon_up{app="billing"`) {
		t.Error("an unavailable app is exported in availmon_up")
	}
}

// Two monitors in one process each serve their own families, and can share
// a registry when told apart by a label.
func TestTwoMonitorsOneProcess(t *testing.T) {
	reg := prometheus.NewRegistry()
	newMetricsMonitor(t, prometheus.WrapRegistererWith(prometheus.Labels{"monitor": "a"}, reg))
	newMetricsMonitor(t, prometheus.WrapRegistererWith(prometheus.Labels{"monitor": "b"}, reg))
	if got := testutil.CollectAndCount(reg, "availmon_up"); got != 4 {
		t.Errorf("shared registry has %d availmon_up series, want 4", got)
	}
	// Registering the same families twice unlabelled is refused by New, not a panic.
	_, err := availmon.New(availmon.Options{Registerer: reg})
	_, err2 := availmon.New(availmon.Options{Registerer: reg})
	if err == nil && err2 == nil {
		t.Error("two unlabelled monitors on one registry: want an error from New")
	}
}

// A caller's Gatherer replaces the monitor's own families on /metrics.
func TestMetricsGatherer(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "host_service_total", Help: "x"})
	reg.MustRegister(c)
	m, err := availmon.New(availmon.Options{Gatherer: reg, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	body := get(t, m.Handler(), "/metrics").Body.String()
	if !strings.Contains(body, "host_service_total 0") || !strings.Contains(body, "availmon_scrape_interval_seconds") {
		t.Errorf("/metrics does not serve the given gatherer with the monitor's families:\n%s", body)
	}
}
