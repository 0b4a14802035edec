// Package availtest holds what the monitor's and the sources' integration
// tests share: a Monitor's API read over real HTTP, Prometheus backends
// through a counting transport, and a rig of a real Prometheus behind the
// fault proxy (internal/promtest).
package availtest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/promtest"
	"github.com/availmon/availmon/promsource"
)

// CountingTransport counts the requests a PrometheusSource sends.
type CountingTransport struct {
	next     http.RoundTripper
	Requests atomic.Int64
}

func (c *CountingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.Requests.Add(1)
	return c.next.RoundTrip(r)
}

// NewCountingTransport counts over a transport of its own, whose idle
// connections close with the test.
func NewCountingTransport(t testing.TB) *CountingTransport {
	return &CountingTransport{next: Transport(t)}
}

// Transport is a transport of the test's own, whose idle connections
// close with the test. Like the one promsource builds (prometheus/common's)
// it asks for no compression: Go's default asks for gzip, which costs
// Prometheus and the test CPU the binary does not spend, and which the
// benchmarks would count.
func Transport(t testing.TB) *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DisableCompression = true
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// PromBackend is a Backend reading from srv through a counting transport.
func PromBackend(t testing.TB, name string, srv *promtest.Server) (availmon.Backend, *CountingTransport) {
	t.Helper()
	ct := NewCountingTransport(t)
	// The tests check answers, not speed: a query may wait long on a
	// machine loaded with other tests.
	src, err := promsource.New(promsource.Options{
		Name: name, URL: srv.URL(), RoundTripper: ct, QueryTimeout: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	return availmon.Backend{Name: name, URL: srv.URL(), Source: src, BatchSize: promsource.BatchSize}, ct
}

// API reads a Monitor's API over real HTTP.
type API struct {
	t   testing.TB
	Srv *httptest.Server
}

// NewAPI reads the API served by srv.
func NewAPI(t testing.TB, srv *httptest.Server) *API { return &API{t: t, Srv: srv} }

// ServeAPI serves m's API on a test server closed with the test.
func ServeAPI(t testing.TB, m *availmon.Monitor) *API {
	srv := httptest.NewServer(m.Handler())
	t.Cleanup(srv.Close)
	return NewAPI(t, srv)
}

// Get decodes the JSON answer to GET path into v and returns the status.
func (c *API) Get(path string, v any) int {
	c.t.Helper()
	res, err := http.Get(c.Srv.URL + path)
	if err != nil {
		c.t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		c.t.Fatalf("GET %s: decoding: %v", path, err)
	}
	return res.StatusCode
}

// WireApp and the Wire types below are the API's answers, as a client
// decodes them.
type WireApp struct {
	Name          string   `json:"name"`
	Location      string   `json:"location"`
	Status        string   `json:"status"`
	LastCheck     *string  `json:"last_check"`
	ResponseTime  *float64 `json:"response_time"`
	Metric        string   `json:"metric"`
	PrometheusURL string   `json:"prometheus_url"`
	Error         string   `json:"error"`
}

type WireHistoryEntry struct {
	Status       string  `json:"status"`
	ResponseTime float64 `json:"response_time"`
	Error        string  `json:"error"`
}

type WireAppDetail struct {
	WireApp
	History []WireHistoryEntry `json:"history"`
}

type WireLocationSummary struct {
	TotalApps              int      `json:"total_apps"`
	UpCount                int      `json:"up_count"`
	DownCount              int      `json:"down_count"`
	UnavailableCount       int      `json:"unavailable_count"`
	AvailabilityPercentage *float64 `json:"availability_percentage"`
}

type WireLocation struct {
	Name string `json:"name"`
	Apps []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
	} `json:"apps"`
	Summary WireLocationSummary `json:"summary"`
}

type WireStatus struct {
	SystemStatus            string   `json:"system_status"`
	OverallAvailability     *float64 `json:"overall_availability"`
	TotalApplications       int      `json:"total_applications"`
	ApplicationsUp          int      `json:"applications_up"`
	ApplicationsDown        int      `json:"applications_down"`
	ApplicationsUnavailable int      `json:"applications_unavailable"`
	PrometheusConnectivity  string   `json:"prometheus_connectivity"`
}

// AppStates is GET /api/apps as name -> status.
func (c *API) AppStates() map[string]string {
	c.t.Helper()
	var body struct{ Data []WireApp }
	if code := c.Get("/api/apps", &body); code != http.StatusOK {
		c.t.Fatalf("GET /api/apps: status %d", code)
	}
	out := make(map[string]string, len(body.Data))
	for _, a := range body.Data {
		out[a.Name] = a.Status
	}
	return out
}

// AppErrors returns the error of every app that has one, for failure
// messages.
func (c *API) AppErrors() map[string]string {
	c.t.Helper()
	var body struct{ Data []WireApp }
	c.Get("/api/apps", &body)
	out := make(map[string]string)
	for _, a := range body.Data {
		if a.Error != "" {
			out[a.Name] = a.Error
		}
	}
	return out
}

// App is GET /api/apps/{name}.
func (c *API) App(name string) WireAppDetail {
	c.t.Helper()
	var body struct{ Data WireAppDetail }
	if code := c.Get("/api/apps/"+url.PathEscape(name), &body); code != http.StatusOK {
		c.t.Fatalf("GET /api/apps/%s: status %d", name, code)
	}
	return body.Data
}

// Location is GET /api/locations/{name}.
func (c *API) Location(name string) WireLocation {
	c.t.Helper()
	var body struct{ Data WireLocation }
	if code := c.Get("/api/locations/"+url.PathEscape(name), &body); code != http.StatusOK {
		c.t.Fatalf("GET /api/locations/%s: status %d", name, code)
	}
	return body.Data
}

// Status is GET /api/status.
func (c *API) Status() WireStatus {
	c.t.Helper()
	var body struct{ Data WireStatus }
	if code := c.Get("/api/status", &body); code != http.StatusOK {
		c.t.Fatalf("GET /api/status: status %d", code)
	}
	return body.Data
}

// Pct is a pointer to f, for wanted percentages.
func Pct(f float64) *float64 { return &f }

// Scrape runs one cycle of m.
func Scrape(t testing.TB, m *availmon.Monitor) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Scrape(ctx); err != nil {
		t.Fatalf("Scrape: %v", err)
	}
}

// NewMonitor is availmon.New, whose cycles the test runs with Scrape
// unless o sets an Interval.
func NewMonitor(t testing.TB, o availmon.Options) *availmon.Monitor {
	t.Helper()
	if o.Interval == 0 {
		o.Interval = time.Hour // cycles are run by the test with Scrape
	}
	m, err := availmon.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var TwoLocations = []availmon.Location{
	{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818},
	{Name: "Frankfurt", Latitude: 50.1109, Longitude: 8.6821},
}

// RunMonitor runs m until the test ends and waits for its first cycle, so
// /health reports on a live Scrape loop.
func RunMonitor(t *testing.T, m *availmon.Monitor, api *API) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := m.Run(ctx); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		var body struct {
			Data struct {
				LastUpdate *string `json:"last_update"`
			}
		}
		api.Get("/api/status", &body)
		if body.Data.LastUpdate != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the first cycle of Run did not complete within 30s")
		}
		<-tick.C
	}
}

// Health is GET /health: its status code and status.
func (c *API) Health() (int, string) {
	c.t.Helper()
	var body struct{ Status string }
	code := c.Get("/health", &body)
	return code, body.Status
}

// FmtApp names the i-th of many generated apps.
func FmtApp(i int) string { return fmt.Sprintf("app-%d", i) }

// FaultRig is a Prometheus with one exporter (demo_up{app="a"} is 1), a
// fault proxy in front of it, and a Monitor reading through the proxy.
type FaultRig struct {
	T     *testing.T
	Prom  *promtest.Server
	Proxy *promtest.FaultProxy
}

func NewFaultRig(t *testing.T) *FaultRig {
	exp := promtest.NewExporter(t)
	exp.Set("a", 1)
	prom := promtest.Start(t, promtest.Job("demo", exp.Target()))
	prom.WaitForQuery(t, `demo_up{app="a"}`, promtest.SampleEquals(1))
	return &FaultRig{T: t, Prom: prom, Proxy: promtest.NewFaultProxy(t, prom.URL())}
}

// MonitorSetup says how to build one monitor of a rig.
type MonitorSetup struct {
	Apps      []availmon.App
	BatchSize int
	Source    promsource.Options // Name and URL are filled in
	Timeout   time.Duration
	Locations []availmon.Location // default: Tel Aviv, where every app is
	Discover  []availmon.DiscoveryRule
}

// RigMonitor is a Monitor of a rig, its API, registry and log.
type RigMonitor struct {
	*FaultRig
	M   *availmon.Monitor
	API *API
	Reg *prometheus.Registry
	Log *promtest.SyncBuffer
}

// GoodApps returns n apps whose expressions are up and combinable.
func GoodApps(n int) []availmon.App {
	apps := make([]availmon.App, n)
	for i := range apps {
		// Distinct expressions: verdicts are kept per expression.
		apps[i] = availmon.App{Name: FmtApp(i), Location: "Tel Aviv", Metric: `demo_up{app="a"} + ` + strings.Repeat("0*", i) + `0`}
	}
	return apps
}

func (r *FaultRig) Monitor(s MonitorSetup) *RigMonitor {
	r.T.Helper()
	o := s.Source
	o.Name, o.URL = "main", r.Proxy.URL()
	if o.QueryTimeout == 0 {
		o.QueryTimeout = 10 * time.Second
	}
	o.RoundTripper = Transport(r.T)
	src, err := promsource.New(o)
	if err != nil {
		r.T.Fatal(err)
	}
	for i := range s.Apps {
		s.Apps[i].Location = "Tel Aviv"
	}
	if s.Locations == nil {
		s.Locations = TwoLocations[:1]
	}
	rm := &RigMonitor{FaultRig: r, Reg: prometheus.NewRegistry(), Log: &promtest.SyncBuffer{}}
	rm.M = NewMonitor(r.T, availmon.Options{
		Locations:  s.Locations,
		Apps:       s.Apps,
		Discover:   s.Discover,
		Backends:   []availmon.Backend{{Name: "main", URL: r.Proxy.URL(), Source: src, BatchSize: s.BatchSize}},
		Timeout:    cmpOr(s.Timeout, 20*time.Second),
		Registerer: rm.Reg,
		Logger:     slog.New(slog.NewTextHandler(rm.Log, nil)),
	})
	rm.API = ServeAPI(r.T, rm.M)
	RunMonitor(r.T, rm.M, rm.API) // a live loop, for system_status; the test runs the cycles
	return rm
}

func cmpOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// Cycle runs one cycle and returns the requests that reached the proxy.
func (rm *RigMonitor) Cycle() int64 {
	rm.T.Helper()
	before := rm.Proxy.Requests()
	Scrape(rm.T, rm.M)
	return rm.Proxy.Requests() - before
}

// CheckErrors fails the test for an app error that is longer than 512
// bytes or holds a combined query or another app's expression.
func (rm *RigMonitor) CheckErrors(step string) {
	rm.T.Helper()
	CheckAppErrors(rm.T, rm.API, step)
}

// CheckAppErrors is RigMonitor.CheckErrors for any API.
func CheckAppErrors(t *testing.T, api *API, step string) {
	t.Helper()
	var body struct{ Data []WireApp }
	api.Get("/api/apps", &body)
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

// AllStates is every app of apps with status.
func AllStates(apps []availmon.App, status string) map[string]string {
	out := make(map[string]string, len(apps))
	for _, a := range apps {
		out[a.Name] = status
	}
	return out
}
