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
	"github.com/coder/websocket"
	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
)

// Mounted under a prefix, the API verifies the path the client signed (the
// URL it called, prefix included), tells a 404 with that path, and counts
// requests under its own route patterns. Every client here is
// hmac.Transport, with protect_reads on.
func TestMountedUnderPrefix(t *testing.T) {
	mounts := []struct {
		name  string
		mount func(h http.Handler) http.Handler
	}{
		{"http.StripPrefix", func(h http.Handler) http.Handler {
			mux := http.NewServeMux()
			mux.Handle("/availability/", http.StripPrefix("/availability", h))
			return mux
		}},
		{"chi Mount", func(h http.Handler) http.Handler {
			r := chi.NewRouter()
			r.Mount("/availability", h)
			return r
		}},
	}
	for _, mt := range mounts {
		t.Run(mt.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			v, err := hmac.NewVerifier(hmac.VerifierOptions{Secrets: [][]byte{authSecret}})
			if err != nil {
				t.Fatal(err)
			}
			tm := newTestMonitor(t, func(o *Options) {
				o.Authenticator = v
				o.ProtectReads = true
				o.Registerer = reg
				o.RegisterHTTPMetrics = true
			})
			tm.scrape(t)
			srv := httptest.NewServer(mt.mount(tm.Handler()))
			defer srv.Close()
			signed := &http.Client{Transport: &hmac.Transport{Secret: authSecret}}
			base := srv.URL + "/availability"

			call := func(client *http.Client, method, path, body string) (int, map[string]any) {
				t.Helper()
				req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, decode(t, b)
			}
			if code, body := call(signed, http.MethodPost, "/api/scrape-interval", `{"interval":"45s"}`); code != http.StatusOK {
				t.Errorf("signed POST: %d %v", code, body)
			}
			if code, body := call(signed, http.MethodGet, "/api/apps/checkout", ""); code != http.StatusOK {
				t.Errorf("signed GET with protect_reads: %d %v", code, body)
			}
			if code, body := call(signed, http.MethodGet, "/api/status/history?period=1h", ""); code != http.StatusOK {
				t.Errorf("signed GET with a query: %d %v", code, body)
			}

			// A signature made for the path without the prefix is not one
			// for the URL called.
			body := `{"interval":"50s"}`
			now := time.Now().Unix()
			req, _ := http.NewRequest(http.MethodPost, base+"/api/scrape-interval", strings.NewReader(body))
			req.Header.Set(hmac.HeaderTimestamp, strconv.FormatInt(now, 10))
			req.Header.Set(hmac.HeaderAuthorization, hmac.Scheme+" "+hmac.Signature(authSecret, http.MethodPost, "/api/scrape-interval", []byte(body), now))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("a signature for the stripped path: %d, want 403", resp.StatusCode)
			}
			if tm.Interval() != 45*time.Second {
				t.Errorf("interval %s, want 45s", tm.Interval())
			}

			// /api/ws: the upgrade request is signed by the same Transport.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/api/ws?apps=checkout", &websocket.DialOptions{HTTPClient: signed})
			if err != nil {
				status := 0
				if resp != nil {
					status = resp.StatusCode
				}
				t.Fatalf("signed /api/ws: %v (status %d)", err, status)
			}
			if _, msg, err := c.Read(ctx); err != nil || !strings.Contains(string(msg), `"app":"checkout"`) {
				t.Errorf("first /api/ws message %s, %v", msg, err)
			}
			c.Close(websocket.StatusNormalClosure, "")

			// A 404 names the path the client sent.
			code, nf := call(http.DefaultClient, http.MethodGet, "/api/nope", "")
			details, _ := nf["error"].(obj)["details"].([]any)
			if code != http.StatusNotFound || len(details) != 1 || details[0] != "GET /availability/api/nope is not part of the API" {
				t.Errorf("404: %d %v", code, nf)
			}

			want := map[string]bool{"/api/scrape-interval": true, "/api/apps/{name}": true, "/api/status/history": true,
				"/api/ws": true, routeUnmatched: true}
			// A stream is counted when its handler returns, after the
			// client's close reaches the server: wait for it.
			got := requestPaths(t, reg)
			for deadline := time.Now().Add(10 * time.Second); !got["/api/ws"] && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond) // polling, not waiting for an outcome
				got = requestPaths(t, reg)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("http_requests_total paths (-want +got):\n%s", diff)
			}
		})
	}
}

// requestPaths is the set of path labels of http_requests_total in reg.
func requestPaths(t *testing.T, reg *prometheus.Registry) map[string]bool {
	t.Helper()
	got := map[string]bool{}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "http_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "path" {
					got[l.GetValue()] = true
				}
			}
		}
	}
	return got
}
