package availmon_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon"
)

// trickleServer answers 200 at once, then sends its body one byte every
// 25 ms ("ok" first, 200 bytes in all, 5 s), or, at /silent, never sends
// headers at all. The timeouts below (1 s) leave a busy machine ample time
// for the headers and "ok", and none for the whole body.
func trickleServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/silent" {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Length", "200")
		w.WriteHeader(http.StatusOK)
		body := "ok" + strings.Repeat(".", 198)
		for i := range len(body) {
			if _, err := w.Write([]byte{body[i]}); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-time.After(25 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// One rule for HTTP probes: the check (the headers, and the body it needs)
// completes within its timeout or the app is unavailable, with an error
// saying which part timed out. A trickling body is no longer up with one
// timeout and unavailable with another.
func TestHTTPProbeMustCompleteWithinTimeout(t *testing.T) {
	srv := trickleServer(t)
	src := newHTTPSource(t, availmon.HTTPSourceOptions{})
	tests := []struct {
		name   string
		probe  availmon.HTTPProbe
		status availmon.Status
		errHas string
	}{
		{"body not complete", availmon.HTTPProbe{URL: srv.URL, Timeout: time.Second},
			availmon.StatusUnavailable, "timed out reading the body"},
		{"body_contains found in time", availmon.HTTPProbe{URL: srv.URL, Timeout: time.Second, BodyContains: "ok"},
			availmon.StatusUp, ""},
		{"body_contains not found in time", availmon.HTTPProbe{URL: srv.URL, Timeout: time.Second, BodyContains: "never"},
			availmon.StatusUnavailable, "timed out reading the body"},
		{"no headers", availmon.HTTPProbe{URL: srv.URL + "/silent", Timeout: time.Second},
			availmon.StatusUnavailable, "timed out waiting for the response headers: the check must complete within its timeout 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := probeOne(t, src, tt.probe)
			if got.Status != tt.status {
				t.Fatalf("status %s (%v), want %s", got.Status, got.Err, tt.status)
			}
			if tt.errHas != "" && (got.Err == nil || !strings.Contains(got.Err.Error(), tt.errHas)) {
				t.Errorf("error %v, want it to say %q", got.Err, tt.errHas)
			}
		})
	}
}

// Without a timeout of its own a probe is bounded by the cycle's deadline,
// and its app's error says which part did not arrive, not "answered after
// the cycle deadline".
func TestHTTPProbeCycleDeadline(t *testing.T) {
	srv := trickleServer(t)
	src := newHTTPSource(t, availmon.HTTPSourceOptions{})
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Here"}},
		Apps: []availmon.App{
			{Name: "trickle", Location: "Here", HTTP: &availmon.HTTPProbe{URL: srv.URL}},
			{Name: "silent", Location: "Here", HTTP: &availmon.HTTPProbe{URL: srv.URL + "/silent"}},
		},
		Backends: []availmon.Backend{{Name: "http", Source: src, BatchSize: 1}},
		Interval: 2 * time.Second,
		Timeout:  time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Scrape(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := m.Handler()
	for app, want := range map[string]string{
		"trickle": "timed out reading the body",
		"silent":  "timed out waiting for the response headers: the check must complete within the cycle's deadline",
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/apps/"+app, nil))
		body := rec.Body.String()
		if !strings.Contains(body, `"status":"unavailable"`) || !strings.Contains(body, want) || strings.Contains(body, "answered after") {
			t.Errorf("%s: %s\nwant unavailable saying %q", app, body, want)
		}
	}
}
