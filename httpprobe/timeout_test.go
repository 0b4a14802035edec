package httpprobe_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/httpprobe"
)

// bodyServer answers 200 at once and then never ends its body: at
// /trickle it sends "ok" and then one byte a second, at /stream "ok" and
// then 32 KiB chunks as fast as the client takes them; at /silent it never
// sends headers. Every handler, when it returns (the client went), sends
// the time and the request's X-Test header on gone.
func bodyServer(t *testing.T) (srv *httptest.Server, gone chan leaving) {
	gone = make(chan leaving, 16)
	chunk := []byte(strings.Repeat(".", 32<<10))
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { gone <- leaving{r.Header.Get("X-Test"), time.Now()} }()
		if r.URL.Path == "/silent" {
			<-r.Context().Done()
			return
		}
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("ok"))
		w.(http.Flusher).Flush()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			if r.URL.Path == "/stream" {
				if _, err := w.Write(chunk); err != nil {
					return
				}
				continue
			}
			select {
			case <-tick.C:
				if _, err := w.Write([]byte(".")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv, gone
}

type leaving struct {
	test string
	at   time.Time
}

// One rule for bodies that do not end in time, whether they trickle or
// never end: the status decides, and the body counts only as far as
// body_contains needs it. Without body_contains both are up. With it,
// the text found in time is up; the first MaxBodyBytes come without it is
// down; the timeout passing before either is unavailable (the answer that
// would tell never came, as with headers that never come). response_time
// runs to the verdict: the headers, or the text found; never the reading
// of the rest of the body, which goes on only a moment so that the
// connection may be reused, and is then cut off.
func TestHTTPProbeBodyNotEndingInTime(t *testing.T) {
	srv, gone := bodyServer(t)
	src := newHTTPSource(t, httpprobe.Options{MaxBodyBytes: 64 << 10})
	tests := []struct {
		name   string
		probe  httpprobe.Probe
		status availmon.Status
		errHas string
	}{
		{"trickle", httpprobe.Probe{URL: srv.URL + "/trickle"}, availmon.StatusUp, ""},
		{"endless", httpprobe.Probe{URL: srv.URL + "/stream"}, availmon.StatusUp, ""},
		{"trickle, text found", httpprobe.Probe{URL: srv.URL + "/trickle", BodyContains: "ok"}, availmon.StatusUp, ""},
		{"endless, text found", httpprobe.Probe{URL: srv.URL + "/stream", BodyContains: "ok"}, availmon.StatusUp, ""},
		{"trickle, text not found in time", httpprobe.Probe{URL: srv.URL + "/trickle", BodyContains: "never"},
			availmon.StatusUnavailable, "timed out reading the body"},
		{"endless, text not in the first 64 KiB", httpprobe.Probe{URL: srv.URL + "/stream", BodyContains: "never"},
			availmon.StatusDown, `(first 65536 bytes read) does not contain "never"`},
		{"trickle, wrong status", httpprobe.Probe{URL: srv.URL + "/trickle", ExpectStatus: []string{"204"}},
			availmon.StatusDown, "answered 200 OK, expected 204"},
		{"no headers", httpprobe.Probe{URL: srv.URL + "/silent"},
			availmon.StatusUnavailable, "timed out waiting for the response headers: the check must complete within its timeout 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.probe.Timeout = time.Second
			tt.probe.Headers = map[string]string{"X-Test": tt.name}
			before := time.Now()
			got := probeOne(t, src, tt.probe)
			if got.Status != tt.status {
				t.Fatalf("status %s (%v), want %s", got.Status, got.Err, tt.status)
			}
			if (tt.errHas == "") != (got.Err == nil) || got.Err != nil && !strings.Contains(got.Err.Error(), tt.errHas) {
				t.Errorf("error %v, want it to say %q", got.Err, tt.errHas)
			}
			var left time.Time
			for left.IsZero() {
				select {
				case l := <-gone:
					if l.test == tt.name {
						left = l.at
					}
				case <-time.After(30 * time.Second):
					t.Fatal("the probe never let go of the endless body")
				}
			}
			if got.ResponseTime <= 0 {
				t.Errorf("response_time %v, want > 0", got.ResponseTime)
			}
			// The server saw the client go only after the probe had its
			// verdict and had stopped reading.
			if tt.status == availmon.StatusUp && got.ResponseTime >= left.Sub(before) {
				t.Errorf("response_time %v reaches past the end of the reading (%v): it counts the body drained after the verdict",
					got.ResponseTime, left.Sub(before))
			}
		})
	}
}

// Without a timeout of its own a probe is bounded by the cycle's deadline.
// The same rule holds there: the result is in before the deadline, so a
// trickling body without body_contains is up (not "answered after the
// cycle deadline"), and an error says which part did not arrive.
func TestHTTPProbeCycleDeadline(t *testing.T) {
	srv, _ := bodyServer(t)
	src := newHTTPSource(t, httpprobe.Options{})
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Here"}},
		Apps: []availmon.App{
			{Name: "trickle", Location: "Here", Settings: &httpprobe.Probe{URL: srv.URL + "/trickle"}},
			{Name: "needle", Location: "Here", Settings: &httpprobe.Probe{URL: srv.URL + "/trickle", BodyContains: "never"}},
			{Name: "silent", Location: "Here", Settings: &httpprobe.Probe{URL: srv.URL + "/silent"}},
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
	for app, want := range map[string][]string{
		"trickle": {`"status":"up"`},
		"needle":  {`"status":"unavailable"`, "timed out reading the body (", "bytes read): the check must complete within the cycle's deadline"},
		"silent":  {`"status":"unavailable"`, "timed out waiting for the response headers: the check must complete within the cycle's deadline"},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/apps/"+app, nil))
		body := rec.Body.String()
		for _, w := range want {
			if !strings.Contains(body, w) || strings.Contains(body, "answered after") {
				t.Errorf("%s: %s\nwant it to say %q", app, body, w)
			}
		}
	}
}
