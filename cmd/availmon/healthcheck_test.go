package main

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// `availmon healthcheck` exits 0 only when /health answers 200, and takes
// the server's -listen value as it is, an unspecified host included.
func TestHealthcheck(t *testing.T) {
	answer := func(status int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/health" {
				http.NotFound(w, r)
				return
			}
			w.WriteHeader(status)
		}))
		t.Cleanup(srv.Close)
		return srv.Listener.Addr().String()
	}
	healthy, unhealthy := answer(http.StatusOK), answer(http.StatusServiceUnavailable)
	_, healthyPort, _ := net.SplitHostPort(healthy)
	closed := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln.Close()
		return ln.Addr().String()
	}()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"healthy", []string{"-listen", healthy}, exitOK, ""},
		{"unspecified host is asked on loopback", []string{"-listen", ":" + healthyPort}, exitOK, ""},
		{"0.0.0.0 is asked on loopback", []string{"-listen=0.0.0.0:" + healthyPort}, exitOK, ""},
		{"503", []string{"-listen", unhealthy}, exitError, "503 Service Unavailable"},
		{"nothing listening", []string{"-listen", closed}, exitError, "connection refused"},
		{"unknown flag", []string{"-lisen", healthy}, exitUsage, "flag provided but not defined"},
		{"argument", []string{"-listen", healthy, "now"}, exitUsage, `unexpected argument "now"`},
		{"zero timeout", []string{"-listen", healthy, "-timeout", "0s"}, exitUsage, "-timeout must be more than 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(t.Context(), append([]string{"healthcheck"}, tt.args...), &out, &errb, noEnv)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.wantCode, errb.String())
			}
			if !strings.Contains(errb.String(), tt.wantErr) {
				t.Errorf("stderr %q lacks %q", errb.String(), tt.wantErr)
			}
		})
	}
}

// The health check of a real server: healthy while it serves, failing
// once it has stopped.
func TestHealthcheckServer(t *testing.T) {
	p := startInProcess(t, writeConfig(t, ""), noEnv)
	addr := strings.TrimPrefix(p.base, "http://")
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"healthcheck", "-listen", addr}, &out, &errb, noEnv); code != exitOK {
		t.Fatalf("healthcheck of a serving availmon: exit %d: %s", code, errb.String())
	}
	if want := "GET http://" + addr + "/health: 200 OK\n"; out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
	if code := p.stop(t); code != exitOK {
		t.Fatalf("stop: exit %d", code)
	}
	if code := run(t.Context(), []string{"healthcheck", "-listen", addr}, &out, &errb, noEnv); code != exitError {
		t.Errorf("healthcheck of a stopped availmon: exit %d, want %d", code, exitError)
	}
}
