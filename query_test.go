package availmon

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every read endpoint refuses a query parameter it does not know, with the
// ones it accepts in the details, as /api/ws always did.
func TestUnknownQueryParameters(t *testing.T) {
	tm := newTestMonitor(t)
	tm.scrape(t)
	tests := []struct {
		target  string
		message string
		details []any
	}{
		{"/api/apps?verbose=1", `unknown query parameter "verbose"`, []any{"accepted query parameters: location, status, label.*"}},
		{"/api/apps?label.=x", `unknown query parameter "label."`, []any{"accepted query parameters: location, status, label.*"}},
		{"/api/services?x=1", `unknown query parameter "x"`, []any{"accepted query parameters: none"}},
		{"/api/apps/checkout?x", `unknown query parameter "x"`, []any{"accepted query parameters: none"}},
		{"/api/locations?a=1", `unknown query parameter "a"`, []any{"accepted query parameters: none"}},
		{"/api/locations/Frankfurt?a=1", `unknown query parameter "a"`, []any{"accepted query parameters: none"}},
		{"/api/config?a=1", `unknown query parameter "a"`, []any{"accepted query parameters: none"}},
		{"/api/status?verbose=1", `unknown query parameter "verbose"`, []any{"accepted query parameters: none"}},
		{"/api/metrics/summary?period=1h", `unknown query parameter "period"`, []any{"accepted query parameters: none"}},
		{"/api/status/history?perod=7d", `unknown query parameter "perod"`, []any{"accepted query parameters: period, resolution"}},
		{"/api/status/history?period=1h&b=1&a=2", `unknown query parameters "a", "b"`, []any{"accepted query parameters: period, resolution"}},
		{"/api/status/history?period=%zz", "invalid query string", []any{`invalid URL escape "%zz"`, "accepted query parameters: period, resolution"}},
		{"/api/ws?app=checkout", `unknown query parameter "app"`, []any{"accepted query parameters: apps, locations"}},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			code, body := get(t, tm.h, tt.target)
			e, _ := body["error"].(obj)
			if code != http.StatusBadRequest || e["code"] != codeValidation {
				t.Fatalf("%d %v, want 400 %s", code, body, codeValidation)
			}
			if diff := cmp.Diff(tt.message, e["message"]); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.details, e["details"]); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
		})
	}
	// Known parameters still work.
	for _, target := range []string{"/api/apps", "/api/apps?status=up", "/api/status?", "/api/status/history?period=1h&resolution=1m"} {
		if code, body := get(t, tm.h, target); code != http.StatusOK {
			t.Errorf("GET %s: %d %v", target, code, body)
		}
	}
}

// The interval body has exactly one member: a repeated "interval" is
// refused, not resolved to the last one.
func TestIntervalBodyDuplicateMember(t *testing.T) {
	tm := newTestMonitor(t, openWrites)
	for _, body := range []string{
		`{"interval":"30s","interval":"45s"}`,
		`{"interval":"45s","interval":"45s"}`,
	} {
		rec := do(t, tm.h, http.MethodPost, "/api/scrape-interval", body, nil)
		e, _ := decode(t, rec.Body.Bytes())["error"].(obj)
		if rec.Code != http.StatusBadRequest || e["code"] != codeValidation {
			t.Fatalf("%s: %d %s, want 400 %s", body, rec.Code, rec.Body, codeValidation)
		}
		if d, _ := e["details"].([]any); len(d) == 0 || !strings.Contains(d[0].(string), "more than once") {
			t.Errorf("%s: details %v, want them to say the member is repeated", body, e["details"])
		}
	}
	if got := tm.Interval().String(); got != "30s" {
		t.Errorf("interval %s, want it unchanged", got)
	}
}

// FuzzIntervalBody: no body crashes the parser, and an accepted body has
// exactly one "interval" member holding a valid interval.
func FuzzIntervalBody(f *testing.F) {
	for _, s := range []string{`{"interval":"30s"}`, `{"interval":"30s","interval":"45s"}`, `null`, `{}`,
		`{"interval":30}`, `{"interval":"30s"} x`, `[`, `{"a":1}`, ` {"interval" : "1h30m" } `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		d, text, err := parseIntervalBody(strings.NewReader(body))
		if err != nil {
			if ae := toAPIError(err); ae.status != http.StatusBadRequest {
				t.Fatalf("%q: status %d, want 400", body, ae.status)
			}
			return
		}
		if checkInterval(d) != nil || text == "" || strings.Count(body, "interval") == 0 {
			t.Fatalf("%q accepted as %s (%q)", body, d, text)
		}
	})
}
