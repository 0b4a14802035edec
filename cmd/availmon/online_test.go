package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
)

// -check-config -online runs each discovery rule once against a real
// Prometheus and prints its apps per location and what it skipped; a
// failing query is exit 1.
func TestCheckConfigOnline(t *testing.T) {
	exp := promtest.NewExporter(t)
	for _, a := range []string{"cart", "search", "billing"} {
		exp.Set(a, 1)
	}
	prom := promtest.Start(t, promtest.Job("demo", exp.Target()))
	prom.WaitForQuery(t, promtest.ExporterMetric, promtest.SampleCount(3))
	cfg := fmt.Sprintf(`prometheus:
  - {name: main, url: %s}
  - {name: down, url: http://%s}
locations:
  - {name: Demo land, latitude: 1, longitude: 2, match: [demo]}
  - {name: Elsewhere, latitude: 3, longitude: 4}
discover:
  - {name: by-app, prometheus: main, query: demo_up, app: 'svc-{{ .app }}', location_label: job}
  - {name: nowhere, prometheus: main, query: demo_up, app: '{{ .app }}', location_label: instance}
`, prom.URL(), availtest.ClosedPort(t))
	path := filepath.Join(t.TempDir(), "online.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	code := run(t.Context(), []string{"-config", path, "-check-config", "-online"}, &out, &errOut, noEnv)
	if code != exitOK {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	for _, w := range []string{
		"config OK: 0 apps, 2 locations, 2 Prometheus backends\n",
		"discover by-app (backend main): 3 apps (Demo land 3)\n",
		"discover nowhere (backend main): 0 apps; skipped 3 unmapped_location; location values mapped to no location: [",
	} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("stdout lacks %q:\n%s", w, out.String())
		}
	}

	failing := strings.Replace(cfg, "prometheus: main, query: demo_up, app: '{{ .app }}'", "prometheus: down, query: demo_up, app: '{{ .app }}'", 1)
	if err := os.WriteFile(path, []byte(failing), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run(t.Context(), []string{"-config", path, "-check-config", "-online"}, &out, io.Discard, noEnv); code != exitError ||
		!strings.Contains(out.String(), "discover nowhere (backend down): query failed: ") {
		t.Errorf("a failing rule: exit %d, stdout:\n%s", code, out.String())
	}
	if code := run(t.Context(), []string{"-config", path, "-online"}, io.Discard, io.Discard, noEnv); code != exitUsage {
		t.Errorf("-online without -check-config: exit %d, want %d", code, exitUsage)
	}
}

// The real binary with a discovery rule and a state directory: after a
// SIGTERM and a new start, a discovered app has the history it had, and
// goes on from it.
func TestDiscoveredAppsSurviveRestart(t *testing.T) {
	exp := promtest.NewExporter(t)
	exp.Set("cart", 1)
	prom := promtest.Start(t, promtest.Job("demo", exp.Target()))
	prom.WaitForQuery(t, promtest.ExporterMetric, promtest.SampleCount(1))
	cfg := fmt.Sprintf(`scrape_interval: 1s
prometheus:
  - {name: main, url: %s}
locations:
  - {name: Demo land, latitude: 1, longitude: 2, match: [demo]}
discover:
  - {name: by-app, query: demo_up, app: 'svc-{{ .app }}', location_label: job}
`, prom.URL())
	dir := t.TempDir()
	path := filepath.Join(dir, "availmon.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"-config", path, "-storage.path", filepath.Join(dir, "data")}
	first := startBinary(t, args...)
	waitFor(t, "three checks of svc-cart", 30*time.Second, func() bool { return historyLen(t, first.base, "svc-cart") >= 3 })
	saved := historyLen(t, first.base, "svc-cart")
	if err := first.stop(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, first.log.String())
	}

	second := startBinary(t, args...)
	waitFor(t, "svc-cart found again", 30*time.Second, func() bool { return apps(t, second.base)["svc-cart"] == "up" })
	// What was saved (at least what we saw) and the new check.
	if n := historyLen(t, second.base, "svc-cart"); n < saved+1 {
		t.Errorf("svc-cart has %d checks after the restart, want at least the %d seen before and one more; log:\n%s", n, saved, second.log.String())
	}
}

// inMaintenance lists the apps of the binary at base shown in maintenance.
func inMaintenance(t *testing.T, base string) map[string]bool {
	t.Helper()
	_, body := get(t, base+"/api/apps")
	var resp struct {
		Data []struct {
			Name        string
			Maintenance bool
		}
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatalf("/api/apps: %v: %s", err, body)
	}
	out := map[string]bool{}
	for _, a := range resp.Data {
		if a.Maintenance {
			out[a.Name] = true
		}
	}
	return out
}

// SIGHUP moves a window of the file that selects discovered apps by the
// labels of their series onto the apps its new labels select, in the real
// binary against a real Prometheus.
func TestReloadMaintenanceLabelsSIGHUP(t *testing.T) {
	exp := promtest.NewExporter(t)
	exp.Set("cart", 1)
	exp.Set("search", 1)
	prom := promtest.Start(t, promtest.Job("demo", exp.Target()))
	prom.WaitForQuery(t, promtest.ExporterMetric, promtest.SampleCount(2))
	base := fmt.Sprintf(`scrape_interval: 1s
prometheus:
  - {name: main, url: %s}
locations:
  - {name: Demo land, latitude: 1, longitude: 2, match: [demo]}
discover:
  - {name: by-app, query: demo_up, app: 'svc-{{ .app }}', location_label: job}
`, prom.URL())
	path := filepath.Join(t.TempDir(), "availmon.yaml")
	writeFile(t, path, base+"maintenance:\n  - {name: mw, labels: {app: cart}, duration: 1h}\n")
	r := startBinary(t, "-config", path)
	waitFor(t, "svc-cart in maintenance", 30*time.Second, func() bool {
		got := inMaintenance(t, r.base)
		return got["svc-cart"] && len(got) == 1
	})

	writeFile(t, path, base+"maintenance:\n  - {name: mw, labels: {app: search}, duration: 1h}\n")
	if err := r.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "svc-search in maintenance instead of svc-cart", 30*time.Second, func() bool {
		got := inMaintenance(t, r.base)
		return got["svc-search"] && len(got) == 1
	})
	if strings.Contains(r.log.String(), "takes effect only after a restart") {
		t.Errorf("a reload of a maintenance window asks for a restart:\n%s", r.log.String())
	}
	if err := r.stop(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, r.log.String())
	}
}
