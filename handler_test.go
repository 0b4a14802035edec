package availmon

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// obj and arr keep the expected JSON documents short.
type (
	obj = map[string]any
	arr = []any
)

// The standard fixture after one cycle: checkout up in 120ms, search down in
// 250ms, billing up in 80ms, checked at t0 by Run's first cycle; requests
// are made 90 seconds later.
func shapeFixture(t *testing.T) *testMonitor {
	t.Helper()
	tm := newTestMonitor(t, openWrites, func(o *Options) { o.Interval = time.Hour })
	tm.src.Set("checkout", StatusUp, 120*time.Millisecond)
	tm.src.Set("search", StatusDown, 250*time.Millisecond)
	tm.src.Set("billing", StatusUp, 80*time.Millisecond)
	tm.startRun(t)
	tm.clock.Advance(90 * time.Second)
	return tm
}

// Every endpoint's success answer, compared as a whole with the interface's
// field tables: exact key sets, JSON types (numbers, strings, nulls) and the
// envelope's meta.
func TestEndpointShapes(t *testing.T) {
	tm := shapeFixture(t)
	now := ts(t0.Add(90 * time.Second))
	checked := ts(t0)
	// Answers encoded once per snapshot are as of the snapshot (the end of
	// the cycle), not of the request: that is what gives them strong ETags.
	made := checked

	app := func(name, loc, status string, rt float64, lat, lon float64) obj {
		return obj{
			"name": name, "location": loc, "status": status,
			"last_check": checked, "response_time": rt,
			"coordinates":    obj{"latitude": lat, "longitude": lon},
			"metric":         `up{job="` + name + `"}`,
			"prometheus_url": testPromURL,
		}
	}
	checkout := app("checkout", "Tel Aviv", "up", 0.12, 32.0853, 34.7818)
	search := app("search", "Tel Aviv", "down", 0.25, 32.0853, 34.7818)
	billing := app("billing", "Frankfurt", "up", 0.08, 50.1109, 8.6821)
	checkoutDetail := obj{}
	for k, v := range checkout {
		checkoutDetail[k] = v
	}
	checkoutDetail["history"] = arr{obj{"timestamp": checked, "status": "up", "response_time": 0.12}}

	var hourPoints arr
	for i := range 12 {
		start := t0.Add(time.Duration(i-11) * 5 * time.Minute)
		p := obj{"timestamp": ts(start), "overall_availability": nil, "apps_up": 0.0, "apps_down": 0.0, "apps_unavailable": 0.0}
		if i == 11 {
			p = obj{"timestamp": ts(start), "overall_availability": 66.67, "apps_up": 2.0, "apps_down": 1.0, "apps_unavailable": 0.0}
		}
		hourPoints = append(hourPoints, p)
	}

	tests := []struct {
		path string
		want obj
	}{
		{"/health", obj{"status": "healthy", "timestamp": now, "uptime": "1m30s", "version": "1.2.3"}},
		{"/api/apps", obj{
			"data": arr{checkout, search, billing},
			"meta": obj{"count": 3.0, "timestamp": made, "last_update": checked},
		}},
		{"/api/apps/checkout", obj{"data": checkoutDetail, "meta": obj{"timestamp": now}}},
		{"/api/locations", obj{
			"data": arr{
				obj{"name": "Tel Aviv", "latitude": 32.0853, "longitude": 34.7818, "apps_count": 2.0, "apps": arr{"checkout", "search"}},
				obj{"name": "Frankfurt", "latitude": 50.1109, "longitude": 8.6821, "apps_count": 1.0, "apps": arr{"billing"}},
			},
			"meta": obj{"count": 2.0, "timestamp": made},
		}},
		{"/api/locations/Tel%20Aviv", obj{
			"data": obj{
				"name": "Tel Aviv", "latitude": 32.0853, "longitude": 34.7818, "apps_count": 2.0,
				"apps": arr{
					obj{"name": "checkout", "status": "up", "last_check": checked},
					obj{"name": "search", "status": "down", "last_check": checked},
				},
				"summary": obj{"total_apps": 2.0, "up_count": 1.0, "down_count": 1.0, "unavailable_count": 0.0,
					"availability_percentage": 50.0},
			},
			"meta": obj{"timestamp": made},
		}},
		{"/api/locations/Frankfurt", obj{
			"data": obj{
				"name": "Frankfurt", "latitude": 50.1109, "longitude": 8.6821, "apps_count": 1.0,
				"apps":    arr{obj{"name": "billing", "status": "up", "last_check": checked}},
				"summary": obj{"total_apps": 1.0, "up_count": 1.0, "down_count": 0.0, "unavailable_count": 0.0, "availability_percentage": 100.0},
			},
			"meta": obj{"timestamp": made},
		}},
		{"/api/config", obj{
			"data": obj{
				"scrape_interval": "1h", "scrape_timeout": "10s", "log_level": "info",
				"total_apps": 3.0, "total_locations": 2.0, "version": "1.2.3", "uptime": "1m30s",
				"prometheus_urls": arr{testPromURL}, "history_size": 100.0, "max_parallel": 32.0,
			},
			"meta": obj{"timestamp": now},
		}},
		{"/api/status", obj{"data": obj{
			"system_status": "healthy", "overall_availability": 66.67,
			"total_applications": 3.0, "applications_up": 2.0, "applications_down": 1.0,
			"applications_unavailable": 0.0, "total_locations": 2.0,
			"last_update": checked, "prometheus_connectivity": "connected",
		}}},
		{"/api/status/history?period=1h&resolution=5m", obj{
			"data": obj{"period": "1h", "resolution": "5m", "data_points": hourPoints},
			"meta": obj{"count": 12.0, "timestamp": now},
		}},
		{"/api/metrics/summary", obj{
			"data": obj{
				"total_requests": 3.0, "total_errors": 0.0, "average_response_time": 0.15, "uptime_percentage": 66.67,
				"apps_summary": arr{
					obj{"name": "checkout", "status": "up", "uptime_24h": 100.0, "avg_response_time": 0.12},
					obj{"name": "search", "status": "down", "uptime_24h": 0.0, "avg_response_time": 0.25},
					obj{"name": "billing", "status": "up", "uptime_24h": 100.0, "avg_response_time": 0.08},
				},
				"locations_summary": arr{
					obj{"name": "Tel Aviv", "apps_up": 1.0, "apps_down": 1.0, "apps_unavailable": 0.0, "availability": 50.0},
					obj{"name": "Frankfurt", "apps_up": 1.0, "apps_down": 0.0, "apps_unavailable": 0.0, "availability": 100.0},
				},
			},
			"meta": obj{"timestamp": made, "period": "24h"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			status, got := get(t, tm.h, tt.path)
			if status != http.StatusOK {
				t.Errorf("status %d, want 200", status)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("GET %s (-want +got):\n%s", tt.path, diff)
			}
		})
	}

	// HEAD is answered like GET (the server drops the body).
	srv := httptest.NewServer(tm.h)
	defer srv.Close()
	res, err := srv.Client().Head(srv.URL + "/api/status")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("HEAD /api/status: status %d, Content-Type %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	// Over a real connection, the bodies assembled around precomputed JSON
	// are whole and match their Content-Length.
	for _, path := range []string{"/api/apps", "/api/locations/Tel%20Aviv", "/api/metrics/summary", "/api/status"} {
		res, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK || res.ContentLength != int64(len(body)) {
			t.Errorf("GET %s over HTTP: status %d, Content-Length %d, %d bytes read, err %v", path, res.StatusCode, res.ContentLength, len(body), err)
		}
		if diff := cmp.Diff(decode(t, do(t, tm.h, http.MethodGet, path, "", nil).Body.Bytes()), decode(t, body)); diff != "" {
			t.Errorf("GET %s over HTTP differs from the handler's answer (-handler +http):\n%s", path, diff)
		}
	}

	// The one write, then /api/config shows the new value as it was written.
	t.Run("POST /api/scrape-interval", func(t *testing.T) {
		rec := do(t, tm.h, http.MethodPost, "/api/scrape-interval", `{"interval": "60s"}`,
			http.Header{"Content-Type": {"application/json"}})
		want := obj{
			"data": obj{"interval": "60s", "previous_interval": "1h", "updated_at": now},
			"meta": obj{"timestamp": now},
		}
		if rec.Code != http.StatusOK {
			t.Errorf("status %d, want 200", rec.Code)
		}
		if diff := cmp.Diff(want, decode(t, rec.Body.Bytes())); diff != "" {
			t.Errorf("POST /api/scrape-interval (-want +got):\n%s", diff)
		}
		if got := tm.Interval(); got != time.Minute {
			t.Errorf("Interval() = %s, want 1m", got)
		}
		_, cfg := get(t, tm.h, "/api/config")
		if got := cfg["data"].(obj)["scrape_interval"]; got != "60s" {
			t.Errorf("config scrape_interval = %v, want 60s", got)
		}
	})
}

// Names are matched after URL decoding, whichever way the client encoded
// them, and only exactly.
func TestLocationNameEncoding(t *testing.T) {
	tm := newTestMonitor(t, func(o *Options) {
		o.Locations = append(o.Locations, Location{Name: "a/b ü"})
		o.Apps = append(o.Apps, App{Name: "x/y", Location: "a/b ü"})
	})
	tm.scrape(t)
	tests := []struct {
		path       string
		wantStatus int
		wantName   string
	}{
		{"/api/locations/Tel%20Aviv", 200, "Tel Aviv"},
		{"/api/locations/%54el%20Aviv", 200, "Tel Aviv"},
		{"/api/locations/a%2Fb%20%C3%BC", 200, "a/b ü"},
		{"/api/apps/x%2Fy", 200, "x/y"},
		{"/api/locations/tel%20aviv", 404, ""},
		{"/api/locations/Tel+Aviv", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			status, body := get(t, tm.h, tt.path)
			if status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %v", status, tt.wantStatus, body)
			}
			if tt.wantStatus == 200 {
				if got := body["data"].(obj)["name"]; got != tt.wantName {
					t.Errorf("name %v, want %q", got, tt.wantName)
				}
			}
		})
	}
}

// X-Request-Id: a safe client value of 1-64 characters is echoed, anything
// else is replaced by a generated one; error envelopes repeat it.
func TestRequestID(t *testing.T) {
	tm := newTestMonitor(t)
	generated := regexp.MustCompile(`^[0-9a-f]{32}$`)
	tests := []struct {
		name   string
		sent   []string // nil: header absent
		echoed bool
	}{
		{name: "absent"},
		{name: "empty", sent: []string{""}},
		{name: "simple", sent: []string{"abc-123"}, echoed: true},
		{name: "all safe characters", sent: []string{"Az09-_.:"}, echoed: true},
		{name: "64 characters", sent: []string{strings.Repeat("x", 64)}, echoed: true},
		{name: "65 characters", sent: []string{strings.Repeat("x", 65)}},
		{name: "space", sent: []string{"a b"}},
		{name: "slash", sent: []string{"a/b"}},
		{name: "non-ASCII", sent: []string{"ü"}},
		{name: "newline-ish", sent: []string{"a\tb"}},
	}
	for _, tt := range tests {
		for _, path := range []string{"/api/status", "/api/apps/nope"} {
			t.Run(tt.name+path, func(t *testing.T) {
				h := http.Header{}
				if tt.sent != nil {
					h["X-Request-Id"] = tt.sent
				}
				rec := do(t, tm.h, http.MethodGet, path, "", h)
				got := rec.Header().Get("X-Request-Id")
				switch {
				case tt.echoed && got != tt.sent[0]:
					t.Errorf("X-Request-Id %q, want the client's %q", got, tt.sent[0])
				case !tt.echoed && !generated.MatchString(got):
					t.Errorf("X-Request-Id %q, want a generated 32-hex-digit id", got)
				}
				if rec.Code != http.StatusOK {
					body := decode(t, rec.Body.Bytes())
					if rid := body["error"].(obj)["request_id"]; rid != got {
						t.Errorf("error.request_id %v, header %q", rid, got)
					}
				}
			})
		}
	}
	// Two requests without an id get different ones.
	a := do(t, tm.h, http.MethodGet, "/health", "", nil).Header().Get("X-Request-Id")
	b := do(t, tm.h, http.MethodGet, "/health", "", nil).Header().Get("X-Request-Id")
	if a == b {
		t.Errorf("two generated request ids are both %q", a)
	}
}

// checkErrorEnvelope asserts the error envelope: data null, meta with only
// the timestamp, and an error object with exactly code, message, details (an
// array of strings) and request_id (equal to the X-Request-Id header).
func checkErrorEnvelope(t *testing.T, rec interface {
	Header() http.Header
}, body []byte, now time.Time, wantCode string) obj {
	t.Helper()
	got := decode(t, body)
	e, _ := got["error"].(obj)
	want := obj{
		"data": nil,
		"meta": obj{"timestamp": ts(now)},
		"error": obj{
			"code":       wantCode,
			"message":    e["message"],
			"details":    e["details"],
			"request_id": rec.Header().Get("X-Request-Id"),
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("error envelope (-want +got):\n%s", diff)
	}
	if msg, ok := e["message"].(string); !ok || msg == "" {
		t.Errorf("error.message %#v, want a non-empty string", e["message"])
	}
	details, ok := e["details"].(arr)
	if !ok {
		t.Fatalf("error.details %#v, want an array", e["details"])
	}
	for _, d := range details {
		if _, ok := d.(string); !ok {
			t.Errorf("error.details holds %#v, want strings only", d)
		}
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	return e
}

// Every bad request gets its status and the error envelope, and changes
// nothing: the interval, /api/config and /api/status read the same after.
func TestBadRequests(t *testing.T) {
	tm := newTestMonitor(t, openWrites)
	tm.src.Set("checkout", StatusUp, time.Millisecond)
	tm.scrape(t)
	const post = http.MethodPost
	const iv = "/api/scrape-interval"
	oversized := `{"interval": "30s"` + strings.Repeat(" ", MaxBodyBytes) + `}`
	tests := []struct {
		name        string
		method      string
		path        string
		body        string
		wantStatus  int
		wantCode    string
		wantAllow   string
		wantDetails []string // each must appear in some detail
	}{
		{name: "unknown app", method: "GET", path: "/api/apps/nope", wantStatus: 404, wantCode: codeNotFound, wantDetails: []string{`"nope"`}},
		{name: "unknown location", method: "GET", path: "/api/locations/Atlantis", wantStatus: 404, wantCode: codeNotFound, wantDetails: []string{`"Atlantis"`}},
		{name: "location name case", method: "GET", path: "/api/locations/tel%20aviv", wantStatus: 404, wantCode: codeNotFound},
		{name: "unknown path", method: "GET", path: "/api/nothing", wantStatus: 404, wantCode: codeNotFound},
		{name: "root", method: "GET", path: "/", wantStatus: 404, wantCode: codeNotFound},
		{name: "below an app", method: "GET", path: "/api/apps/checkout/history", wantStatus: 404, wantCode: codeNotFound},
		{name: "unknown path POST", method: post, path: "/api/nothing", body: "{}", wantStatus: 404, wantCode: codeNotFound},
		{name: "POST apps", method: post, path: "/api/apps", wantStatus: 405, wantCode: codeValidation, wantAllow: "GET, HEAD"},
		{name: "DELETE app", method: "DELETE", path: "/api/apps/checkout", wantStatus: 405, wantCode: codeValidation, wantAllow: "GET, HEAD"},
		{name: "PUT health", method: "PUT", path: "/health", wantStatus: 405, wantCode: codeValidation, wantAllow: "GET, HEAD"},
		{name: "GET scrape-interval", method: "GET", path: iv, wantStatus: 405, wantCode: codeValidation, wantAllow: "POST"},
		{name: "PUT scrape-interval", method: "PUT", path: iv, body: `{"interval":"30s"}`, wantStatus: 405, wantCode: codeValidation, wantAllow: "POST"},
		{name: "bad period", method: "GET", path: "/api/status/history?period=2h", wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"1h, 24h, 7d, 30d"}},
		{name: "empty period", method: "GET", path: "/api/status/history?period=", wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"1h, 24h, 7d, 30d"}},
		{name: "period twice", method: "GET", path: "/api/status/history?period=1h&period=24h", wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"1h, 24h, 7d, 30d"}},
		{name: "period case", method: "GET", path: "/api/status/history?period=24H", wantStatus: 400, wantCode: codeValidation},
		{name: "bad resolution", method: "GET", path: "/api/status/history?resolution=10m", wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"1m, 5m, 1h"}},
		{name: "resolution in seconds", method: "GET", path: "/api/status/history?period=1h&resolution=60s", wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"1m, 5m, 1h"}},
		{name: "bad query encoding", method: "GET", path: "/api/status/history?period=%zz", wantStatus: 400, wantCode: codeValidation},
		{name: "malformed JSON", method: post, path: iv, body: `{"interval":`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{`"interval"`}},
		{name: "empty body", method: post, path: iv, body: "", wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"empty"}},
		{name: "blank body", method: post, path: iv, body: " \n\t", wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"empty"}},
		{name: "oversized body", method: post, path: iv, body: oversized, wantStatus: 413, wantCode: codeValidation, wantDetails: []string{"65536"}},
		{name: "array", method: post, path: iv, body: `["30s"]`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"not a JSON object"}},
		{name: "string", method: post, path: iv, body: `"30s"`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"not a JSON object"}},
		{name: "null", method: post, path: iv, body: `null`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"not a JSON object"}},
		{name: "number", method: post, path: iv, body: `30`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"not a JSON object"}},
		{name: "two objects", method: post, path: iv, body: `{"interval":"30s"}{}`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"after the JSON object"}},
		{name: "trailing garbage", method: post, path: iv, body: `{"interval":"30s"} x`, wantStatus: 400, wantCode: codeValidation},
		{name: "extra member", method: post, path: iv, body: `{"interval":"30s","force":true}`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{`"force"`}},
		{name: "member case", method: post, path: iv, body: `{"Interval":"30s"}`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{`"Interval"`}},
		{name: "missing member", method: post, path: iv, body: `{}`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"missing"}},
		{name: "number interval", method: post, path: iv, body: `{"interval":30}`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"must be a string"}},
		{name: "null interval", method: post, path: iv, body: `{"interval":null}`, wantStatus: 400, wantCode: codeValidation},
		{name: "object interval", method: post, path: iv, body: `{"interval":{"s":30}}`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"must be a string"}},
		{name: "no unit", method: post, path: iv, body: `{"interval":"30"}`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{`"30" is not a duration`, "1h30m"}},
		{name: "space", method: post, path: iv, body: `{"interval":"30 s"}`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"not a duration"}},
		{name: "words", method: post, path: iv, body: `{"interval":"thirty seconds"}`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"not a duration"}},
		{name: "empty interval", method: post, path: iv, body: `{"interval":""}`, wantStatus: 400, wantCode: codeValidation},
		{name: "below minimum", method: post, path: iv, body: `{"interval":"500ms"}`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"[1s, 1h]"}},
		{name: "above maximum", method: post, path: iv, body: `{"interval":"2h"}`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"[1s, 1h]"}},
		{name: "just above maximum", method: post, path: iv, body: `{"interval":"1h1s"}`, wantStatus: 400, wantCode: codeValidation, wantDetails: []string{"[1s, 1h]"}},
		{name: "zero", method: post, path: iv, body: `{"interval":"0s"}`, wantStatus: 400, wantCode: codeValidation},
		{name: "negative", method: post, path: iv, body: `{"interval":"-5s"}`, wantStatus: 400, wantCode: codeValidation},
		{name: "huge", method: post, path: iv, body: `{"interval":"99999999999y"}`, wantStatus: 400, wantCode: codeValidation},
	}

	snapshotOfState := func() (time.Duration, obj, obj) {
		_, cfg := get(t, tm.h, "/api/config")
		_, status := get(t, tm.h, "/api/status")
		return tm.Interval(), cfg, status
	}
	ivBefore, cfgBefore, statusBefore := snapshotOfState()
	eventsBefore := tm.events.cursor()

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, tm.h, tt.method, tt.path, tt.body, http.Header{"X-Request-Id": {"req-" + strings.ReplaceAll(tt.name, " ", "-")}})
			if rec.Code != tt.wantStatus {
				t.Errorf("status %d, want %d\n%s", rec.Code, tt.wantStatus, rec.Body)
			}
			if got := rec.Header().Get("X-Request-Id"); got != "req-"+strings.ReplaceAll(tt.name, " ", "-") {
				t.Errorf("X-Request-Id %q not echoed", got)
			}
			if got := rec.Header().Get("Allow"); got != tt.wantAllow {
				t.Errorf("Allow %q, want %q", got, tt.wantAllow)
			}
			e := checkErrorEnvelope(t, rec, rec.Body.Bytes(), t0, tt.wantCode)
			details := ""
			for _, d := range e["details"].(arr) {
				details += d.(string) + "\n"
			}
			if len(tt.wantDetails) > 0 || tt.wantStatus == 400 || tt.wantStatus == 413 {
				if details == "" {
					t.Errorf("error.details is empty; it must say what is wrong")
				}
			}
			for _, want := range tt.wantDetails {
				if !strings.Contains(details, want) {
					t.Errorf("error.details %q lacks %q", details, want)
				}
			}

			ivAfter, cfgAfter, statusAfter := snapshotOfState()
			if ivAfter != ivBefore {
				t.Errorf("Interval() changed from %s to %s", ivBefore, ivAfter)
			}
			if diff := cmp.Diff(cfgBefore, cfgAfter); diff != "" {
				t.Errorf("/api/config changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(statusBefore, statusAfter); diff != "" {
				t.Errorf("/api/status changed (-before +after):\n%s", diff)
			}
			if got := tm.events.cursor(); got != eventsBefore {
				t.Errorf("%d events recorded by a bad request", got-eventsBefore)
			}
		})
	}
}

// The accepted interval bodies, at the edges of the range and in the
// syntaxes the rulings name; each is echoed as written.
func TestScrapeIntervalAccepted(t *testing.T) {
	var logs bytes.Buffer
	tm := newTestMonitor(t, openWrites, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	tests := []struct {
		body string
		want time.Duration
		text string
	}{
		{`{"interval":"1s"}`, time.Second, "1s"},
		{`{"interval":"1h"}`, time.Hour, "1h"},
		{`{"interval":"1000ms"}`, time.Second, "1000ms"},
		{`{"interval":"5m"}`, 5 * time.Minute, "5m"},
		{`{"interval":"1m30s"}`, 90 * time.Second, "1m30s"},
		{` {"interval" : "60s"} `, time.Minute, "60s"},
	}
	prev := "30s"
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			rec := do(t, tm.h, http.MethodPost, "/api/scrape-interval", tt.body, nil)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d\n%s", rec.Code, rec.Body)
			}
			got := decode(t, rec.Body.Bytes())["data"].(obj)
			want := obj{"interval": tt.text, "previous_interval": prev, "updated_at": ts(t0)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
			if tm.Interval() != tt.want {
				t.Errorf("Interval() = %s, want %s", tm.Interval(), tt.want)
			}
			prev = tt.text
		})
	}
	// Each change is a config_update event.
	evs, _, _, _ := tm.events.read(0, nil)
	var n int
	for _, e := range evs {
		if e.Type == EventConfigUpdate {
			n++
		}
	}
	if n != len(tests) {
		t.Errorf("%d config_update events, want %d", n, len(tests))
	}
	// And is logged.
	if got := strings.Count(logs.String(), `msg="scrape interval changed"`); got != len(tests) {
		t.Errorf("%d interval changes logged, want %d:\n%s", got, len(tests), logs.String())
	}
	if !strings.Contains(logs.String(), "interval=1m30s previous_interval=5m") {
		t.Errorf("the log does not name the new and previous interval:\n%s", logs.String())
	}
}
