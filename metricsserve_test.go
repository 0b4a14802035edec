package availmon_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
)

// manyAppsMonitor is a monitor of n apps (every third down, every fifth
// unavailable) after one cycle, registered on reg.
func manyAppsMonitor(t *testing.T, n int, o availmon.Options) *availmon.Monitor {
	t.Helper()
	o.Locations = []availmon.Location{{Name: "Tel Aviv"}, {Name: "Frankfurt"}}
	for i := range n {
		o.Apps = append(o.Apps, availmon.App{Name: fmt.Sprintf("app-%04d", i), Location: o.Locations[i%2].Name})
	}
	o.Source = availmon.SourceFunc(func(ctx context.Context, app availmon.App) availmon.Result {
		var i int
		fmt.Sscanf(app.Name, "app-%d", &i)
		switch {
		case i%5 == 0:
			return availmon.Result{Status: availmon.StatusUnavailable}
		case i%3 == 0:
			return availmon.Result{Status: availmon.StatusDown}
		}
		return availmon.Result{Status: availmon.StatusUp, ResponseTime: time.Millisecond}
	})
	o.Clock = availmontest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	m, err := availmon.New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Scrape(context.Background()); err != nil {
		t.Fatal(err)
	}
	return m
}

// canonical parses a text exposition and writes it back sorted by family,
// leaving out the families named in skip.
func canonical(t *testing.T, mfs map[string]*dto.MetricFamily, skip ...string) string {
	t.Helper()
	var names []string
	for n := range mfs {
		if !slices.Contains(skip, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		if _, err := expfmt.MetricFamilyToText(&b, mfs[n]); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func parseText(t *testing.T, body []byte) map[string]*dto.MetricFamily {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v\n%s", err, body)
	}
	return mfs
}

func gathered(t *testing.T, g prometheus.Gatherer) map[string]*dto.MetricFamily {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

// /metrics, served from the snapshot's cache, is what a fresh gather of the
// monitor's families gives, in text, gzip and OpenMetrics alike (request
// counters aside: the scrapes themselves move them).
func TestMetricsEqualFreshGather(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := manyAppsMonitor(t, 300, availmon.Options{Registerer: reg})
	h := m.Handler()
	for range 2 { // the second answer comes from the cache
		rec := get(t, h, "/metrics")
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d", rec.Code)
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
			t.Errorf("Content-Type %q", ct)
		}
		want := canonical(t, gathered(t, reg), "http_requests_total")
		if diff := cmp.Diff(want, canonical(t, parseText(t, rec.Body.Bytes()), "http_requests_total")); diff != "" {
			t.Errorf("/metrics differs from a fresh gather (-want +got):\n%s", diff)
		}
	}

	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q", rec.Header().Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	want := canonical(t, gathered(t, reg), "http_requests_total")
	if diff := cmp.Diff(want, canonical(t, parseText(t, plain), "http_requests_total")); diff != "" {
		t.Errorf("gzip /metrics differs from a fresh gather (-want +got):\n%s", diff)
	}

	req = httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body := rec.Body.String()
	if !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/openmetrics-text") ||
		!strings.HasSuffix(body, "\n# EOF\n") || strings.Count(body, "# EOF") != 1 {
		t.Errorf("OpenMetrics answer: Content-Type %q, ends %q", rec.Header().Get("Content-Type"), body[max(0, len(body)-40):])
	}
	if !strings.Contains(body, `availmon_up{app="app-0001",location="Frankfurt"} 1`) {
		t.Error("OpenMetrics answer lacks availmon_up")
	}
}

// The families of Options.Gatherer are live: a change shows on the next
// scrape without a cycle. The Go collector's are among them, and the
// monitor's own families are served once even when they are registered on
// the Gatherer too.
func TestMetricsGathererLive(t *testing.T) {
	for _, registerToo := range []bool{false, true} {
		reg := prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector())
		c := prometheus.NewCounter(prometheus.CounterOpts{Name: "host_service_total", Help: "x"})
		reg.MustRegister(c)
		o := availmon.Options{Gatherer: reg}
		if registerToo {
			o.Registerer = reg
		}
		m := manyAppsMonitor(t, 30, o)
		h := m.Handler()
		if body := get(t, h, "/metrics").Body.String(); !strings.Contains(body, "host_service_total 0\n") {
			t.Fatalf("no host_service_total 0:\n%s", body)
		}
		c.Inc()
		body := get(t, h, "/metrics").Body.String()
		if !strings.Contains(body, "host_service_total 1\n") || !strings.Contains(body, "go_goroutines ") {
			t.Errorf("the gatherer's families are not live:\n%s", body)
		}
		mfs := parseText(t, []byte(body)) // fails on a family given twice
		if n := len(mfs["availmon_up"].GetMetric()); n != 24 {
			t.Errorf("registered too: %v: availmon_up has %d series, want 24", registerToo, n)
		}
	}
}

// countingHandler counts log records by level.
type countingHandler struct {
	mu     sync.Mutex
	levels []slog.Level
}

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.levels = append(h.levels, r.Level)
	return nil
}
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }

// hangUpWriter is a client that went away after the headers.
type hangUpWriter struct{ h http.Header }

func (w *hangUpWriter) Header() http.Header       { return w.h }
func (w *hangUpWriter) WriteHeader(int)           {}
func (w *hangUpWriter) Write([]byte) (int, error) { return 0, errors.New("write: broken pipe") }

// A scraper that hangs up mid-answer costs at most one debug line, however
// many families there are, plain, gzip or filtered.
func TestMetricsClientHangsUp(t *testing.T) {
	logs := &countingHandler{}
	m := manyAppsMonitor(t, 50, availmon.Options{Logger: slog.New(logs)})
	h := m.Handler()
	for _, tt := range []struct{ target, encoding string }{
		{"/metrics", ""},
		{"/metrics", "gzip"},
		{"/metrics?name[]=availmon_up&name[]=availmon_apps&name[]=http_requests_total", ""},
	} {
		logs.mu.Lock()
		logs.levels = nil
		logs.mu.Unlock()
		req := httptest.NewRequest(http.MethodGet, tt.target, nil)
		if tt.encoding != "" {
			req.Header.Set("Accept-Encoding", tt.encoding)
		}
		h.ServeHTTP(&hangUpWriter{h: http.Header{}}, req)
		logs.mu.Lock()
		got := slices.Clone(logs.levels)
		logs.mu.Unlock()
		if len(got) > 1 || (len(got) == 1 && got[0] != slog.LevelDebug) {
			t.Errorf("%s (%q): log levels %v, want at most one debug line", tt.target, tt.encoding, got)
		}
	}
}

// promtool, when installed (always in CI), finds nothing to say about
// /metrics served from the cache.
func TestMetricsPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("promtool is not installed")
		}
		t.Skip("promtool is not installed")
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := manyAppsMonitor(t, 40, availmon.Options{Gatherer: reg})
	h := m.Handler()
	get(t, h, "/api/apps")
	body := get(t, h, "/metrics").Body.Bytes()
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// The cached /metrics of a cycle is what promhttp writes from a fresh
// gather of the same registry, plain and gzip; after the next cycle, whose
// states differ, the answer changes and is again what promhttp writes.
func TestMetricsCacheFollowsCycles(t *testing.T) {
	var flipped atomic.Bool
	clock := availmontest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	reg := prometheus.NewRegistry()
	o := availmon.Options{Registerer: reg, Clock: clock, Locations: []availmon.Location{{Name: "Frankfurt"}}}
	for i := range 50 {
		o.Apps = append(o.Apps, availmon.App{Name: fmt.Sprintf("app-%02d", i), Location: "Frankfurt"})
	}
	o.Source = availmon.SourceFunc(func(ctx context.Context, app availmon.App) availmon.Result {
		if (app.Name[len(app.Name)-1]%2 == 0) != flipped.Load() {
			return availmon.Result{Status: availmon.StatusDown}
		}
		return availmon.Result{Status: availmon.StatusUp, ResponseTime: time.Millisecond}
	})
	m, err := availmon.New(o)
	if err != nil {
		t.Fatal(err)
	}
	h := m.Handler()
	fresh := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	// scrape answers both handlers, as text decompressed, leaving out
	// the request counters the scrapes themselves move.
	scrape := func(gz bool) (cached, want string) {
		t.Helper()
		var out [2]string
		for i, hh := range []http.Handler{h, fresh} {
			req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
			if gz {
				req.Header.Set("Accept-Encoding", "gzip")
			}
			rec := httptest.NewRecorder()
			hh.ServeHTTP(rec, req)
			body := rec.Body.Bytes()
			if gz {
				if rec.Header().Get("Content-Encoding") != "gzip" {
					t.Fatalf("handler %d: Content-Encoding %q", i, rec.Header().Get("Content-Encoding"))
				}
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			out[i] = canonical(t, parseText(t, body), "http_requests_total")
		}
		return out[0], out[1]
	}
	var before string
	for cycle := range 2 {
		if cycle == 1 {
			flipped.Store(true)
			clock.Advance(time.Minute)
		}
		if err := m.Scrape(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, gz := range []bool{false, true, false} { // the last from the cache
			cached, want := scrape(gz)
			if diff := cmp.Diff(want, cached); diff != "" {
				t.Fatalf("cycle %d, gzip %v: /metrics differs from promhttp's fresh answer (-want +got):\n%s", cycle, gz, diff)
			}
			if cycle == 1 && cached == before {
				t.Fatalf("cycle %d, gzip %v: /metrics did not change with the states", cycle, gz)
			}
			if cycle == 0 {
				before = cached
			}
		}
	}
}
