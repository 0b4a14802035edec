package availmon_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
)

// Embedding into a service that has metrics of its own: the monitor's
// families join the service's registry, which already counts the service's
// requests as http_requests_total{code,handler}, as most Go services do.
// The monitor's own http_requests_total stays on its handler's /metrics
// (unless Options.RegisterHTTPMetrics asks for it on the Registerer too).
func Example_hostRegistry() {
	reg := prometheus.NewRegistry()
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "http_requests_total", Help: "Requests the service served.",
	}, []string{"code", "handler"})
	reg.MustRegister(requests, collectors.NewGoCollector())
	requests.WithLabelValues("200", "/orders").Inc() // the service's own traffic

	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818}},
		Apps:      []availmon.App{{Name: "checkout", Location: "Tel Aviv"}},
		Source: availmon.SourceFunc(func(ctx context.Context, app availmon.App) availmon.Result {
			return availmon.Result{Status: availmon.StatusUp}
		}),
		Clock:      availmontest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)),
		Registerer: reg,
	})
	if err != nil {
		panic(err)
	}
	if err := m.Scrape(context.Background()); err != nil {
		panic(err)
	}

	h := m.Handler() // mounted wherever the service likes
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/apps", nil))

	fmt.Println("the service's /metrics:")
	printSeries(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	fmt.Println("the monitor's /metrics:")
	printSeries(h)
	// Output:
	// the service's /metrics:
	// availmon_up{app="checkout",location="Tel Aviv"} 1
	// http_requests_total{code="200",handler="/orders"} 1
	// the monitor's /metrics:
	// availmon_up{app="checkout",location="Tel Aviv"} 1
	// http_requests_total{method="GET",path="/api/apps",status="200"} 1
}

// printSeries prints the availmon_up and http_requests_total series that
// h serves at /metrics.
func printSeries(h http.Handler) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for line := range strings.Lines(rec.Body.String()) {
		if strings.HasPrefix(line, "availmon_up{") || strings.HasPrefix(line, "http_requests_total{") {
			fmt.Print(line)
		}
	}
}
