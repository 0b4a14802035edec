package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/promtest"
)

// The binary serves the page at / unless -web.page=false; the API is the same
// either way.
func TestWebFlag(t *testing.T) {
	cfg := writeConfig(t, "")
	tests := []struct {
		name       string
		args       []string
		pageStatus int
		pageHas    string
	}{
		{"default", nil, http.StatusOK, `<script type="module" src="assets/app.js">`},
		{"-web.page=false", []string{"-web.page=false"}, http.StatusNotFound, `"code":"NOT_FOUND"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			log := new(promtest.SyncBuffer)
			done := make(chan int, 1)
			go func() {
				done <- run(ctx, append([]string{"-config", cfg, "-listen", "127.0.0.1:0", "-storage.path", t.TempDir()}, tt.args...), io.Discard, log, noEnv)
			}()
			defer func() {
				cancel()
				if code := <-done; code != 0 {
					t.Errorf("exit code %d; log:\n%s", code, log.String())
				}
			}()
			var base string
			waitFor(t, "the listening log line", 10*time.Second, func() bool {
				m := listenLine.FindStringSubmatch(log.String())
				if m != nil {
					base = "http://" + m[1]
				}
				return m != nil
			})
			code, body := get(t, base+"/")
			if code != tt.pageStatus || !strings.Contains(body, tt.pageHas) {
				t.Errorf("GET /: %d %.200q; want %d containing %q", code, body, tt.pageStatus, tt.pageHas)
			}
			if code, body := get(t, base+"/api/locations"); code != http.StatusOK || !strings.Contains(body, `"Tel Aviv"`) {
				t.Errorf("GET /api/locations: %d %.200q", code, body)
			}
		})
	}
}
