package availmon

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// acceptAll is an Authenticator that lets everything through.
type acceptAll struct{}

func (acceptAll) Verify(*http.Request) error { return nil }

// refuseAll refuses everything.
type refuseAll struct{}

func (refuseAll) Verify(*http.Request) error { return errors.New("no") }

func reloadMonitor(t testing.TB, auth Authenticator, f ReloadFunc) *testMonitor {
	return newTestMonitor(t, func(o *Options) { o.Authenticator, o.Reload = auth, f })
}

func TestReloadEndpointAnswers(t *testing.T) {
	t.Run("off without Reload", func(t *testing.T) {
		tm := newTestMonitor(t)
		if rec := do(t, tm.h, http.MethodPost, "/-/reload", "", nil); rec.Code != http.StatusNotFound {
			t.Errorf("POST /-/reload without Reload: %d, want 404", rec.Code)
		}
	})
	t.Run("needs an Authenticator", func(t *testing.T) {
		_, err := New(Options{Reload: func(context.Context) (ConfigChange, error) { return ConfigChange{}, nil }})
		if err == nil || !strings.Contains(err.Error(), "Reload needs an Authenticator") {
			t.Errorf("New: %v", err)
		}
	})
	t.Run("refused", func(t *testing.T) {
		var calls atomic.Int32
		tm := reloadMonitor(t, refuseAll{}, func(context.Context) (ConfigChange, error) {
			calls.Add(1)
			return ConfigChange{}, nil
		})
		if rec := do(t, tm.h, http.MethodPost, "/-/reload", "", nil); rec.Code != http.StatusForbidden || calls.Load() != 0 {
			t.Errorf("refused request: %d, %d reloads", rec.Code, calls.Load())
		}
	})
	t.Run("success", func(t *testing.T) {
		tm := reloadMonitor(t, acceptAll{}, func(context.Context) (ConfigChange, error) {
			return ConfigChange{AppsAdded: []string{"x"}, Apps: 4, RestartNeeded: []string{"max_parallel"}}, nil
		})
		code, body := post(t, tm.h, "/-/reload", "")
		d := body["data"].(map[string]any)
		if code != http.StatusOK || !cmp.Equal(d["apps_added"], []any{"x"}) || !cmp.Equal(d["restart_needed"], []any{"max_parallel"}) ||
			!cmp.Equal(d["apps_removed"], []any{}) || d["total_apps"] != 4.0 {
			t.Errorf("POST /-/reload: %d %v", code, body)
		}
	})
	t.Run("failure lists every problem", func(t *testing.T) {
		tm := reloadMonitor(t, acceptAll{}, func(context.Context) (ConfigChange, error) {
			return ConfigChange{}, errors.Join(errors.New("a.yaml:3: one"), errors.New("a.yaml:9: two"))
		})
		code, body := post(t, tm.h, "/-/reload", "")
		e := body["error"].(map[string]any)
		if code != http.StatusBadRequest || e["code"] != "VALIDATION_ERROR" ||
			!cmp.Equal(e["details"], []any{"a.yaml:3: one", "a.yaml:9: two"}) {
			t.Errorf("POST /-/reload of a broken file: %d %v", code, body)
		}
	})
	t.Run("bad input", func(t *testing.T) {
		tm := reloadMonitor(t, acceptAll{}, func(context.Context) (ConfigChange, error) { return ConfigChange{}, nil })
		for _, tc := range []struct {
			method, body string
			want         int
		}{
			{http.MethodPost, `{"x":1}`, http.StatusBadRequest},
			{http.MethodPost, strings.Repeat("x", MaxBodyBytes+1), http.StatusRequestEntityTooLarge},
			{http.MethodGet, "", http.StatusMethodNotAllowed},
			{http.MethodPut, "", http.StatusMethodNotAllowed},
		} {
			if rec := do(t, tm.h, tc.method, "/-/reload", tc.body, nil); rec.Code != tc.want {
				t.Errorf("%s /-/reload with %d bytes: %d, want %d", tc.method, len(tc.body), rec.Code, tc.want)
			}
		}
	})
}

func post(t testing.TB, h http.Handler, path, body string) (int, map[string]any) {
	t.Helper()
	rec := do(t, h, http.MethodPost, path, body, nil)
	return rec.Code, decode(t, rec.Body.Bytes())
}

// Whatever the body, POST /-/reload answers in the envelope, never 5xx, and
// reloads only for an empty body.
func FuzzReloadBody(f *testing.F) {
	for _, s := range []string{"", "x", "{}", "\x00\xff", strings.Repeat("a", 100)} {
		f.Add(s)
	}
	var calls atomic.Int32
	tm := reloadMonitor(f, acceptAll{}, func(context.Context) (ConfigChange, error) {
		calls.Add(1)
		return ConfigChange{}, nil
	})
	f.Fuzz(func(t *testing.T, body string) {
		before := calls.Load()
		rec := do(t, tm.h, http.MethodPost, "/-/reload", body, nil)
		decode(t, rec.Body.Bytes())
		switch {
		case rec.Code >= 500:
			t.Fatalf("%d for body %q", rec.Code, body)
		case body == "" && (rec.Code != http.StatusOK || calls.Load() != before+1):
			t.Fatalf("empty body: %d", rec.Code)
		case body != "" && calls.Load() != before:
			t.Fatalf("a body %q reloaded", body)
		}
	})
}
