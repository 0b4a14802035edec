package availmon

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/availmon/availmon/hmac"
	"github.com/google/go-cmp/cmp"
)

// The writes of the API, each with a body it would accept.
var apiWrites = []struct{ method, path, body string }{
	{http.MethodPost, "/api/scrape-interval", `{"interval":"60s"}`},
	{http.MethodPost, "/api/maintenance", `{"app":"search","from":"2026-11-22T00:00:00Z","to":"2026-12-22T00:00:00Z"}`},
	{http.MethodDelete, "/api/maintenance/config-1", ""},
	{http.MethodPost, "/-/reload", ""},
}

// Without an Authenticator, and without the explicit opt-in, every write is
// refused with 403 FORBIDDEN in the error envelope, with a message that
// says how to configure authentication, and changes nothing; reads are
// served as ever.
func TestWritesRefusedWithoutAuthentication(t *testing.T) {
	var logs bytes.Buffer
	tm := newTestMonitor(t, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		o.Maintenance = []MaintenanceWindow{{App: "billing", Cron: "@daily", Duration: time.Hour}}
	})
	_, cfgBefore := get(t, tm.h, "/api/config")
	_, maintBefore := get(t, tm.h, "/api/maintenance")

	// POST /-/reload cannot be served so: New refuses a Reload without
	// either (TestWritesOptionsValidation).
	for _, w := range apiWrites[:3] {
		rec := do(t, tm.h, w.method, w.path, w.body, http.Header{"Content-Type": {"application/json"}})
		body := decode(t, rec.Body.Bytes())
		e, _ := body["error"].(map[string]any)
		if rec.Code != http.StatusForbidden || e == nil || e["code"] != "FORBIDDEN" || body["data"] != nil || body["meta"] == nil {
			t.Errorf("%s %s: %d %s, want 403 FORBIDDEN in the envelope", w.method, w.path, rec.Code, rec.Body)
			continue
		}
		msg := e["message"].(string) + " " + strings.Join(toStrings(e["details"]), " ")
		for _, want := range []string{"no authentication is configured", "authentication.hmac", "allow_unauthenticated_writes", "Options.AllowUnauthenticatedWrites"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s %s: the error does not say %q: %s", w.method, w.path, want, msg)
			}
		}
	}
	_, cfgAfter := get(t, tm.h, "/api/config")
	_, maintAfter := get(t, tm.h, "/api/maintenance")
	if d := cmp.Diff(cfgBefore["data"], cfgAfter["data"]); d != "" {
		t.Errorf("/api/config changed (-before +after):\n%s", d)
	}
	if d := cmp.Diff(maintBefore["data"], maintAfter["data"]); d != "" {
		t.Errorf("/api/maintenance changed (-before +after):\n%s", d)
	}
	if code, _ := get(t, tm.h, "/api/apps"); code != http.StatusOK {
		t.Errorf("GET /api/apps: %d", code)
	}
	if !strings.Contains(logs.String(), `msg="request refused"`) || !strings.Contains(logs.String(), "no authentication is configured") {
		t.Errorf("the refusals are not logged:\n%s", logs.String())
	}
}

// Options.AllowUnauthenticatedWrites serves the writes unsigned, for a
// program that authenticates them in front of the handler.
func TestWritesOpenedExplicitly(t *testing.T) {
	var reloads atomic.Int32
	tm := newTestMonitor(t, openWrites, func(o *Options) {
		o.Maintenance = []MaintenanceWindow{{App: "billing", Cron: "@daily", Duration: time.Hour}}
		o.Reload = func(context.Context) (ConfigChange, error) { reloads.Add(1); return ConfigChange{}, nil }
	})
	want := map[string]int{"/api/scrape-interval": 200, "/api/maintenance": 201, "/api/maintenance/config-1": 409, "/-/reload": 200}
	for _, w := range apiWrites {
		rec := do(t, tm.h, w.method, w.path, w.body, http.Header{"Content-Type": {"application/json"}})
		if rec.Code != want[w.path] {
			t.Errorf("%s %s: %d %s, want %d", w.method, w.path, rec.Code, rec.Body, want[w.path])
		}
	}
	if tm.Interval() != time.Minute || reloads.Load() != 1 {
		t.Errorf("interval %s, %d reloads; want 1m and 1", tm.Interval(), reloads.Load())
	}
}

func TestWritesOptionsValidation(t *testing.T) {
	reload := func(context.Context) (ConfigChange, error) { return ConfigChange{}, nil }
	for _, tc := range []struct {
		name string
		opts Options
		want string // "" for valid
	}{
		{"both", Options{Authenticator: acceptAll{}, AllowUnauthenticatedWrites: true}, "AllowUnauthenticatedWrites contradicts an Authenticator"},
		{"reload alone", Options{Reload: reload}, "Reload needs an Authenticator (or AllowUnauthenticatedWrites)"},
		{"reload opened", Options{Reload: reload, AllowUnauthenticatedWrites: true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			o.Locations = []Location{telAviv}
			o.Apps = []App{{Name: "a", Location: "Tel Aviv", Metric: "up"}}
			o.Source = newFakeSource()
			_, err := New(o)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("New: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("New: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// A signed write whose signature cannot be recorded against replays (the
// Verifier's replay file cannot be written) is refused with 503
// SERVICE_UNAVAILABLE and changes nothing: accepted, it could be replayed
// after a restart.
func TestReplayFileFailureRefusesWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "availmon.replay")
	clock := newFakeClock(t0)
	v, err := hmac.NewVerifier(hmac.VerifierOptions{Secrets: [][]byte{authSecret}, Now: clock.Now, ReplayFile: path})
	if err != nil {
		t.Fatal(err)
	}
	tm := newTestMonitor(t, func(o *Options) { o.Clock, o.Authenticator = clock, v })
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o700); err != nil { // a directory cannot be appended to
		t.Fatal(err)
	}
	rec := serve(tm.h, signedReq(t, http.MethodPost, "/api/scrape-interval", `{"interval":"60s"}`, authSecret, t0))
	body := decode(t, rec.Body.Bytes())
	if rec.Code != http.StatusServiceUnavailable || body["error"].(map[string]any)["code"] != "SERVICE_UNAVAILABLE" {
		t.Errorf("POST with an unwritable replay file: %d %s, want 503 SERVICE_UNAVAILABLE", rec.Code, rec.Body)
	}
	if tm.Interval() != 30*time.Second {
		t.Errorf("interval %s after a refused write, want 30s", tm.Interval())
	}
}
