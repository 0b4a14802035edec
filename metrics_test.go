package availmon_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
)

func newMetricsMonitor(t *testing.T, reg prometheus.Registerer, opts ...func(*availmon.Options)) *availmon.Monitor {
	t.Helper()
	m, err := availmon.New(metricsOptions(reg, opts...))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Scrape(context.Background()); err != nil {
		t.Fatal(err)
	}
	return m
}

func metricsOptions(reg prometheus.Registerer, opts ...func(*availmon.Options)) availmon.Options {
	o := availmon.Options{
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
	}
	for _, f := range opts {
		f(&o)
	}
	return o
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
	m := newMetricsMonitor(t, reg, func(o *availmon.Options) { o.RegisterHTTPMetrics = true })
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
	// Registering the same families twice unlabelled is refused by New, not
	// a panic, with an error that says how to tell them apart.
	reg = prometheus.NewRegistry()
	if _, err := availmon.New(availmon.Options{Registerer: reg}); err != nil {
		t.Fatalf("the first unlabelled monitor: %v", err)
	}
	_, err := availmon.New(availmon.Options{Registerer: reg})
	var already prometheus.AlreadyRegisteredError
	if !errors.As(err, &already) || !strings.Contains(err.Error(), "Options.Registerer") {
		t.Errorf("two unlabelled monitors on one registry: New = %v, want an AlreadyRegisteredError naming Options.Registerer", err)
	}
}

// hostRegistry is the registry of a typical Go service: the Go and process
// collectors, and its own request counter, under the common name but with
// labels of its own.
func hostRegistry(t *testing.T) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewRegistry()
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "http_requests_total", Help: "Requests the host served.",
	}, []string{"code", "handler"})
	reg.MustRegister(requests, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	requests.WithLabelValues("200", "/orders").Inc()
	return reg
}

// A host service's registry, with its own http_requests_total, takes the
// monitor's families with no option set; its counter stays its own, and
// the monitor's handler still serves the monitor's.
func TestEmbedIntoHostRegistry(t *testing.T) {
	reg := hostRegistry(t)
	m := newMetricsMonitor(t, reg)
	get(t, m.Handler(), "/api/apps")

	if got := testutil.CollectAndCount(reg, "availmon_up"); got != 2 {
		t.Errorf("host registry has %d availmon_up series, want 2", got)
	}
	want := `
# HELP http_requests_total Requests the host served.
# TYPE http_requests_total counter
http_requests_total{code="200",handler="/orders"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "http_requests_total"); err != nil {
		t.Error(err)
	}
	body := get(t, m.Handler(), "/metrics").Body.String()
	if line := `http_requests_total{method="GET",path="/api/apps",status="200"} 1`; !strings.Contains(body, "\n"+line+"\n") {
		t.Errorf("the monitor's /metrics lacks %s:\n%s", line, body)
	}
}

// Asking for the HTTP metrics on a registry that has its own is refused
// with an error that names the option, and leaves the registry as it was:
// New then succeeds without the option.
func TestHTTPMetricsClashNamesOption(t *testing.T) {
	reg := hostRegistry(t)
	_, err := availmon.New(metricsOptions(reg, func(o *availmon.Options) { o.RegisterHTTPMetrics = true }))
	if err == nil || !strings.Contains(err.Error(), "Options.RegisterHTTPMetrics") {
		t.Fatalf("New = %v, want an error naming Options.RegisterHTTPMetrics", err)
	}
	if _, err := availmon.New(metricsOptions(reg)); err != nil {
		t.Errorf("New without RegisterHTTPMetrics after the clash: %v", err)
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
