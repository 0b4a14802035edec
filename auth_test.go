package availmon

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon/hmac"
	"github.com/google/go-cmp/cmp"
)

var authSecret = []byte("0123456789abcdef0123456789abcdef")

// newAuthMonitor is the test fixture with an hmac Verifier on the fake clock.
func newAuthMonitor(t *testing.T, protectReads bool) *testMonitor {
	t.Helper()
	var tm *testMonitor
	clock := newFakeClock(t0)
	v, err := hmac.NewVerifier(hmac.VerifierOptions{Secrets: [][]byte{authSecret}, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	tm = newTestMonitor(t, func(o *Options) {
		o.Clock = clock
		o.Authenticator = v
		o.ProtectReads = protectReads
	})
	return tm
}

// signedReq builds a request signed with key at time at.
func signedReq(t *testing.T, method, target, body string, key []byte, at time.Time) *http.Request {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if err := hmac.SignRequest(req, key, at); err != nil {
		t.Fatal(err)
	}
	return req
}

func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestAuthScrapeInterval(t *testing.T) {
	const body = `{"interval":"60s"}`
	tests := []struct {
		name    string
		req     func(t *testing.T) *http.Request
		status  int
		code    string
		details []string // each must occur in some detail
	}{
		{"missing headers", func(t *testing.T) *http.Request {
			return httptest.NewRequest("POST", "/api/scrape-interval", strings.NewReader(body))
		}, 403, "MISSING_AUTH_HEADERS", []string{"Authorization: HMAC-SHA256 <signature>"}},
		{"missing timestamp", func(t *testing.T) *http.Request {
			r := signedReq(t, "POST", "/api/scrape-interval", body, authSecret, t0)
			r.Header.Del("X-Timestamp")
			return r
		}, 403, "MISSING_AUTH_HEADERS", nil},
		{"bad signature", func(t *testing.T) *http.Request {
			r := signedReq(t, "POST", "/api/scrape-interval", body, authSecret, t0)
			r.Header.Set("Authorization", "HMAC-SHA256 "+strings.Repeat("0", 64))
			return r
		}, 403, "INVALID_SIGNATURE", nil},
		{"malformed signature", func(t *testing.T) *http.Request {
			r := signedReq(t, "POST", "/api/scrape-interval", body, authSecret, t0)
			r.Header.Set("Authorization", "HMAC-SHA256 not-hex")
			return r
		}, 403, "INVALID_SIGNATURE", nil},
		{"wrong secret", func(t *testing.T) *http.Request {
			return signedReq(t, "POST", "/api/scrape-interval", body, []byte("another-secret-another-secret-xx"), t0)
		}, 403, "INVALID_SIGNATURE", nil},
		{"tampered body (one byte)", func(t *testing.T) *http.Request {
			r := signedReq(t, "POST", "/api/scrape-interval", body, authSecret, t0)
			r.Body = io.NopCloser(strings.NewReader(`{"interval":"61s"}`))
			return r
		}, 403, "INVALID_SIGNATURE", nil},
		{"tampered path", func(t *testing.T) *http.Request {
			r := signedReq(t, "POST", "/api/scrape-interval", body, authSecret, t0)
			r.URL.Path = "/api//scrape-interval"
			return r
		}, 404, "NOT_FOUND", nil},
		{"signed for another path", func(t *testing.T) *http.Request {
			r := signedReq(t, "POST", "/api/other", body, authSecret, t0)
			r2 := httptest.NewRequest("POST", "/api/scrape-interval", strings.NewReader(body))
			r2.Header = r.Header
			return r2
		}, 403, "INVALID_SIGNATURE", nil},
		{"too old", func(t *testing.T) *http.Request {
			return signedReq(t, "POST", "/api/scrape-interval", body, authSecret, t0.Add(-301*time.Second))
		}, 403, "TIMESTAMP_ERROR", []string{"server time: 2026-", "(" + strconv.FormatInt(t0.Unix(), 10) + ")",
			"request time: ", "(" + strconv.FormatInt(t0.Unix()-301, 10) + ")"}},
		{"too new", func(t *testing.T) *http.Request {
			return signedReq(t, "POST", "/api/scrape-interval", body, authSecret, t0.Add(301*time.Second))
		}, 403, "TIMESTAMP_ERROR", []string{"(" + strconv.FormatInt(t0.Unix()+301, 10) + ")"}},
		{"non-decimal timestamp", func(t *testing.T) *http.Request {
			r := signedReq(t, "POST", "/api/scrape-interval", body, authSecret, t0)
			r.Header.Set("X-Timestamp", "soon")
			return r
		}, 403, "TIMESTAMP_ERROR", []string{"server time: "}},
		{"oversized body", func(t *testing.T) *http.Request {
			return signedReq(t, "POST", "/api/scrape-interval", strings.Repeat(" ", MaxBodyBytes+1), authSecret, t0)
		}, 413, "VALIDATION_ERROR", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tm := newAuthMonitor(t, false)
			before := tm.Interval()
			req := tt.req(t)
			req.Header.Set(HeaderRequestID, "req-1")
			rec := serve(tm.h, req)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			if strings.Contains(rec.Body.String(), `\u003c`) {
				t.Errorf("the body is HTML-escaped: %s", rec.Body)
			}
			resp := decode(t, rec.Body.Bytes())
			e, _ := resp["error"].(map[string]any)
			if resp["data"] != nil || e == nil || e["code"] != tt.code || e["request_id"] != "req-1" || e["message"] == "" {
				t.Fatalf("error envelope = %v, want data null and code %s", resp, tt.code)
			}
			details, _ := e["details"].([]any)
			all := ""
			for _, d := range details {
				all += d.(string) + "\n"
			}
			for _, want := range tt.details {
				if !strings.Contains(all, want) {
					t.Errorf("details %q lack %q", all, want)
				}
			}
			if got := tm.Interval(); got != before {
				t.Errorf("interval changed to %v by a refused request", got)
			}
		})
	}
}

func TestAuthValidAndReplay(t *testing.T) {
	tm := newAuthMonitor(t, false)
	req := signedReq(t, "POST", "/api/scrape-interval", `{"interval":"60s"}`, authSecret, t0)
	replay := req.Clone(context.Background())
	replay.Body = io.NopCloser(strings.NewReader(`{"interval":"60s"}`))

	rec := serve(tm.h, req)
	if rec.Code != 200 {
		t.Fatalf("signed POST: %d %s", rec.Code, rec.Body)
	}
	if tm.Interval() != time.Minute {
		t.Fatalf("interval = %v, want 1m", tm.Interval())
	}
	if err := tm.SetInterval(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	rec = serve(tm.h, replay)
	resp := decode(t, rec.Body.Bytes())
	e, _ := resp["error"].(map[string]any)
	if rec.Code != 403 || e["code"] != "INVALID_SIGNATURE" || e["message"] != "signature already used" {
		t.Fatalf("replay: %d %v, want 403 INVALID_SIGNATURE signature already used", rec.Code, resp)
	}
	if tm.Interval() != 30*time.Second {
		t.Errorf("a replay changed the interval to %v", tm.Interval())
	}
}

func TestAuthProtectReads(t *testing.T) {
	for _, protect := range []bool{false, true} {
		tm := newAuthMonitor(t, protect)
		tm.scrape(t)
		reads := []string{"/api/apps", "/api/apps/checkout", "/api/locations", "/api/locations/Tel%20Aviv",
			"/api/config", "/api/status", "/api/status/history?period=1h&resolution=1m", "/api/metrics/summary"}
		for _, path := range reads {
			rec := serve(tm.h, httptest.NewRequest("GET", path, nil))
			want := 200
			if protect {
				want = 403
			}
			if rec.Code != want {
				t.Errorf("protect_reads=%v: unsigned GET %s = %d, want %d", protect, path, rec.Code, want)
			}
			rec = serve(tm.h, signedReq(t, "GET", path, "", authSecret, t0))
			if rec.Code != 200 {
				t.Errorf("protect_reads=%v: signed GET %s = %d: %s", protect, path, rec.Code, rec.Body)
			}
		}
		// Never guarded, even with protect_reads.
		for _, path := range []string{"/metrics"} {
			if rec := serve(tm.h, httptest.NewRequest("GET", path, nil)); rec.Code != 200 {
				t.Errorf("protect_reads=%v: GET %s = %d, want 200", protect, path, rec.Code)
			}
		}
		rec := serve(tm.h, httptest.NewRequest("GET", "/health", nil))
		if rec.Code == 403 {
			t.Errorf("protect_reads=%v: /health is guarded", protect)
		}
	}
}

// TestAuthTransportClient is a Go client signing with hmac.Transport against
// the handler on a loopback server.
func TestAuthTransportClient(t *testing.T) {
	tm := newAuthMonitor(t, true)
	srv := httptest.NewServer(tm.h)
	defer srv.Close()
	client := &http.Client{Transport: &hmac.Transport{Secret: authSecret, Base: srv.Client().Transport, Now: tm.clock.Now}}

	resp, err := client.Post(srv.URL+"/api/scrape-interval", "application/json", strings.NewReader(`{"interval":"2m"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("POST through hmac.Transport: %d %s", resp.StatusCode, b)
	}
	data := decode(t, b)["data"].(map[string]any)
	if d := cmp.Diff(map[string]any{"interval": "2m", "previous_interval": "30s"},
		map[string]any{"interval": data["interval"], "previous_interval": data["previous_interval"]}); d != "" {
		t.Errorf("update result (-want +got):\n%s", d)
	}
	if tm.Interval() != 2*time.Minute {
		t.Errorf("interval = %v, want 2m", tm.Interval())
	}
	resp, err = client.Get(srv.URL + "/api/status/history?period=1h") // the query is not signed
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET through hmac.Transport: %d", resp.StatusCode)
	}
}

func TestAuthOptionsValidation(t *testing.T) {
	_, err := New(Options{ProtectReads: true})
	if err == nil || !strings.Contains(err.Error(), "ProtectReads needs an Authenticator") {
		t.Errorf("New with ProtectReads and no Authenticator: %v", err)
	}
}
