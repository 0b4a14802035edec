package availtest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// ClosedPort returns a loopback address nothing listens on, for a backend
// that is down: its apps are unavailable, and availmon stays healthy.
func ClosedPort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// WriteDownConfig writes the binary's configuration file of two apps whose
// backends are down (a Prometheus query and an HTTP probe, each of a
// closed port), with extra appended, and returns its path. The config
// package's reload tests and the binary's tests read the same file: line
// numbers in their expected messages count from it.
func WriteDownConfig(t testing.TB, extra string) string {
	t.Helper()
	body := fmt.Sprintf(`scrape_interval: 1s
scrape_timeout: 500ms
prometheus:
  - name: main
    url: http://%s
locations:
  - name: Tel Aviv
    latitude: 32.0853
    longitude: 34.7818
apps:
  - name: checkout
    location: Tel Aviv
    metric: up{job="checkout"}
  - name: homepage
    location: Tel Aviv
    http:
      url: http://%s/healthz
%s`, ClosedPort(t), ClosedPort(t), extra)
	path := filepath.Join(t.TempDir(), "availmon.yaml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
