package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// -web.enable-pprof serves the runtime's profiles next to the API; without
// it (the default) there are none, and the API is the same either way.
func TestPprofFlag(t *testing.T) {
	for _, enabled := range []bool{false, true} {
		args := []string{"-config", writeConfig(t, "")}
		if enabled {
			args = append(args, "-web.enable-pprof")
		}
		p := startArgs(t, args...)
		code, ctype, body := fetch(t, p.base+"/debug/pprof/heap")
		isProfile := code == http.StatusOK && ctype == "application/octet-stream" && len(body) > 0
		if isProfile != enabled {
			t.Errorf("-web.enable-pprof=%v: GET /debug/pprof/heap = %d %s (%d bytes)", enabled, code, ctype, len(body))
		}
		if code, _, body := fetch(t, p.base+"/debug/pprof/"); enabled && (code != http.StatusOK || !strings.Contains(body, "goroutine")) {
			t.Errorf("-web.enable-pprof: GET /debug/pprof/ = %d, no index", code)
		}
		if code, _, _ := fetch(t, p.base+"/api/status"); code != http.StatusOK {
			t.Errorf("-web.enable-pprof=%v: GET /api/status = %d", enabled, code)
		}
		if code := p.stop(t); code != 0 {
			t.Errorf("exit %d", code)
		}
	}
}

func fetch(t *testing.T, url string) (code int, ctype, body string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("Content-Type"), string(b)
}
