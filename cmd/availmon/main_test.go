package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
	"github.com/google/go-cmp/cmp"
)

// writeConfig writes a config whose backends are down
// (availtest.WriteDownConfig), with extra appended.
func writeConfig(t *testing.T, extra string) string { return availtest.WriteDownConfig(t, extra) }

func noEnv(string) (string, bool) { return "", false }

func TestCheckConfig(t *testing.T) {
	good := writeConfig(t, "")
	// Line 13 is the first app's metric; the extra lines start at 18.
	for _, tc := range []struct {
		name       string
		args       []string
		lookup     func(string) (string, bool)
		wantCode   int
		wantStdout string
		wantStderr []string
	}{
		{
			name:       "good",
			args:       []string{"-config", good, "-check-config"},
			wantStdout: "config OK: 2 apps (1 HTTP probe), 1 location, 1 Prometheus backend\n",
		},
		{
			name:       "unknown key",
			args:       []string{"-config", writeConfig(t, "scrape_intervl: 5s"), "-check-config"},
			wantCode:   1,
			wantStderr: []string{`availmon.yaml:18: unknown key "scrape_intervl"`},
		},
		{
			name:     "duplicate app and unknown location, together",
			args:     []string{"-config", writeConfig(t, "  - name: checkout\n    location: Haifa\n    metric: up"), "-check-config"},
			wantCode: 1,
			wantStderr: []string{
				`availmon.yaml:18: app "checkout" is listed twice (first on line 11)`,
				`availmon.yaml:19: app "checkout": unknown location "Haifa"`,
			},
		},
		{
			name: "three bad expressions, together",
			args: []string{"-config", writeConfig(t, "  - name: a\n    location: Tel Aviv\n    metric: 'up{'\n"+
				"  - name: b\n    location: Tel Aviv\n    metric: up\n    response_time_metric: rate(x[5m]\n"+
				"  - name: c\n    location: Tel Aviv\n    metric: x[5m]"), "-check-config"},
			wantCode: 1,
			wantStderr: []string{
				`availmon.yaml:20: app "a": metric: 1:4: parse error: unexpected end of input inside braces`,
				`availmon.yaml:24: app "b": response_time_metric: 1:11: parse error: unclosed left parenthesis`,
				`availmon.yaml:27: app "c": metric: 1:1: the expression returns a range vector`,
			},
		},
		{
			name:       "unset variable",
			args:       []string{"-config", writeConfig(t, "log_level: ${LEVEL}"), "-check-config"},
			wantCode:   1,
			wantStderr: []string{`availmon.yaml:18: environment variable LEVEL is not set`},
		},
		{
			name:       "variable set",
			args:       []string{"-config", writeConfig(t, "log_level: ${LEVEL}"), "-check-config"},
			lookup:     func(k string) (string, bool) { return "debug", k == "LEVEL" },
			wantStdout: "config OK: 2 apps (1 HTTP probe), 1 location, 1 Prometheus backend\n",
		},
		{
			name:       "short secret",
			args:       []string{"-config", writeConfig(t, "authentication:\n  hmac:\n    enabled: true\n    secret: short"), "-check-config"},
			wantCode:   1,
			wantStderr: []string{`availmon.yaml:21: authentication.hmac.secret is 5 bytes; it must be at least 32 bytes`},
		},
		{
			name:       "missing file",
			args:       []string{"-config", filepath.Join(t.TempDir(), "nope.yaml"), "-check-config"},
			wantCode:   1,
			wantStderr: []string{"no such file or directory"},
		},
		{
			name:       "no -config",
			args:       []string{"-check-config"},
			wantCode:   2,
			wantStderr: []string{"availmon: -config is required", "Usage: availmon"},
		},
		{
			name:       "unknown flag",
			args:       []string{"-confg", good},
			wantCode:   2,
			wantStderr: []string{"flag provided but not defined: -confg"},
		},
		{
			name:       "stray argument",
			args:       []string{"-config", good, "extra"},
			wantCode:   2,
			wantStderr: []string{`unexpected argument "extra"`},
		},
		{
			name:       "version",
			args:       []string{"-version"},
			wantStdout: "availmon dev (go",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			lookup := tc.lookup
			if lookup == nil {
				lookup = noEnv
			}
			code := run(t.Context(), tc.args, &stdout, &stderr, lookup)
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tc.wantCode, stderr.String())
			}
			if !strings.HasPrefix(stdout.String(), tc.wantStdout) || (tc.wantStdout == "" && stdout.Len() > 0) {
				t.Errorf("stdout %q, want it to start with %q", stdout.String(), tc.wantStdout)
			}
			for _, w := range tc.wantStderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr does not contain %q:\n%s", w, stderr.String())
				}
			}
		})
	}
}

var listenLine = regexp.MustCompile(`msg=listening addr=(127\.0\.0\.1:\d+)`)

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.After(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		case <-tick.C:
		}
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// inProcess is run() serving in a goroutine of the test.
type inProcess struct {
	base   string // http://127.0.0.1:port
	log    *promtest.SyncBuffer
	cancel context.CancelFunc
	done   chan int
}

// startInProcess runs the server with the config at cfg on a free port and
// waits for /health.
func startInProcess(t *testing.T, cfg string, lookup func(string) (string, bool)) *inProcess {
	t.Helper()
	p := runInProcess(t, lookup, "-config", cfg, "-listen", "127.0.0.1:0", "-storage.path", t.TempDir())
	waitFor(t, "/health 200", 10*time.Second, func() bool { code, _ := get(t, p.base+"/health"); return code == http.StatusOK })
	return p
}

// runInProcess runs the server with args until the test ends, and waits
// for the line that says where it listens.
func runInProcess(t *testing.T, lookup func(string) (string, bool), args ...string) *inProcess {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	p := &inProcess{log: new(promtest.SyncBuffer), cancel: cancel, done: make(chan int, 1)}
	t.Cleanup(cancel)
	go func() { p.done <- run(ctx, args, io.Discard, p.log, lookup) }()
	waitFor(t, "the listening log line", 10*time.Second, func() bool {
		m := listenLine.FindStringSubmatch(p.log.String())
		if m != nil {
			p.base = "http://" + m[1]
		}
		return m != nil
	})
	return p
}

// stop cancels run's context and returns its exit code.
func (p *inProcess) stop(t *testing.T) int {
	t.Helper()
	p.cancel()
	select {
	case code := <-p.done:
		return code
	case <-time.After(15 * time.Second):
		t.Fatalf("run did not return after its context ended; log:\n%s", p.log.String())
		return -1
	}
}

// The server in-process: it serves, and returns 0 when its context ends.
func TestServeInProcess(t *testing.T) {
	p := startInProcess(t, writeConfig(t, ""), noEnv)
	// Both apps are unavailable (their backends are down), which does not
	// make availmon unhealthy.
	waitFor(t, "the first cycle", 10*time.Second, func() bool {
		_, body := get(t, p.base+"/api/apps")
		return strings.Count(body, `"status":"unavailable"`) == 2
	})
	if code := p.stop(t); code != 0 {
		t.Errorf("exit code %d, want 0; log:\n%s", code, p.log.String())
	}
	for _, w := range []string{`msg="shutting down"`, `msg="shutdown complete"`} {
		if !strings.Contains(p.log.String(), w) {
			t.Errorf("log lacks %s:\n%s", w, p.log.String())
		}
	}
	if code, _ := get(t, p.base+"/health"); code != 0 {
		t.Errorf("the server still answers after shutdown (status %d)", code)
	}
}

// authentication.hmac in the file guards the API of the running binary.
func TestServeAuthenticated(t *testing.T) {
	const secret = "0123456789abcdef0123456789abcdef-test"
	cfg := writeConfig(t, "authentication:\n  hmac:\n    enabled: true\n    secret: ${SECRET}\n    protect_reads: true")
	p := startInProcess(t, cfg, func(k string) (string, bool) { return secret, k == "SECRET" })
	defer p.stop(t)

	post := func(client *http.Client) (int, string) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, p.base+"/api/scrape-interval", strings.NewReader(`{"interval":"2s"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post(http.DefaultClient); code != http.StatusForbidden || !strings.Contains(body, "MISSING_AUTH_HEADERS") {
		t.Errorf("unsigned POST = %d %s; want 403 MISSING_AUTH_HEADERS", code, body)
	}
	if code, body := get(t, p.base+"/api/apps"); code != http.StatusForbidden {
		t.Errorf("unsigned GET /api/apps with protect_reads = %d %s; want 403", code, body)
	}
	signed := &http.Client{Transport: &hmac.Transport{Secret: []byte(secret)}}
	if code, body := post(signed); code != http.StatusOK || !strings.Contains(body, `"2s"`) {
		t.Errorf("signed POST = %d %s; want 200 with the new interval", code, body)
	}
	if code, _ := get(t, p.base+"/health"); code != http.StatusOK {
		t.Errorf("/health = %d; it is never guarded", code)
	}
}

// The real binary: built once, started on a free port, stopped by SIGTERM.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "availmon")
	build := exec.Command(goTool, "build", "-ldflags", "-X main.version=v9.9.9-test", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	out, err := exec.Command(bin, "-version").Output()
	if err != nil || !strings.HasPrefix(string(out), "availmon v9.9.9-test (go") {
		t.Errorf("-version printed %q (%v), want the linked-in version", out, err)
	}

	// An app that is up, so that availmon_up has a series.
	healthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer healthy.Close()
	extra := "  - name: orders\n    location: Tel Aviv\n    http:\n      url: " + healthy.URL + "\n"
	cmd := exec.Command(bin, "-config", writeConfig(t, extra), "-listen", "127.0.0.1:0", "-storage.path", t.TempDir())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // only if the test failed before Wait

	// Read the log as it comes: the first lines give the address.
	var log promtest.SyncBuffer
	logDone := make(chan struct{})
	addrCh := make(chan string, 1)
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			fmt.Fprintln(&log, sc.Text())
			if m := listenLine.FindStringSubmatch(sc.Text()); m != nil {
				addrCh <- m[1]
			}
		}
	}()
	var base string
	select {
	case addr := <-addrCh:
		base = "http://" + addr
	case <-time.After(15 * time.Second):
		t.Fatalf("no listening line within 15s; log:\n%s", log.String())
	}

	waitFor(t, "/health 200", 10*time.Second, func() bool { code, _ := get(t, base+"/health"); return code == http.StatusOK })
	code, body := get(t, base+"/health")
	if code != http.StatusOK || !strings.Contains(body, `"version":"v9.9.9-test"`) {
		t.Errorf("/health = %d %s; want 200 with the linked-in version", code, body)
	}
	// A backend's connectivity is exported once a cycle has asked it.
	var metrics string
	waitFor(t, "the first cycle on /metrics", 10*time.Second, func() bool {
		code, m := get(t, base+"/metrics")
		metrics = m
		return code == http.StatusOK && strings.Contains(m, "\navailmon_backend_connected{")
	})
	for _, family := range []string{"availmon_apps{", "availmon_backend_connected{", "go_goroutines ", "process_cpu_seconds_total ", "http_requests_total{"} {
		if !strings.Contains(metrics, "\n"+family) {
			t.Errorf("/metrics has no %s sample", strings.TrimRight(family, "{ "))
		}
	}
	if !strings.Contains(metrics, "\n"+`availmon_up{app="orders",location="Tel Aviv"} 1`+"\n") {
		t.Error("/metrics has no availmon_up sample for the app that is up")
	}
	// The interface's families, by the interface's names and types.
	for _, family := range []string{"availmon_up gauge", "availmon_scrape_duration_seconds histogram",
		"availmon_scrape_errors_total counter", "http_requests_total counter"} {
		if !strings.Contains(metrics, "\n# TYPE "+family+"\n") {
			t.Errorf("/metrics lacks # TYPE %s", family)
		}
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() {
		<-logDone // Wait closes the pipe; read it to the end first
		waited <- cmd.Wait()
	}()
	select {
	case err := <-waited:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v, want status 0; log:\n%s", err, log.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("still running 15s after SIGTERM; log:\n%s", log.String())
	}
	for _, w := range []string{`msg="shutting down" cause="terminated signal received"`, `msg="shutdown complete"`} {
		if !strings.Contains(log.String(), w) {
			t.Errorf("log lacks %s:\n%s", w, log.String())
		}
	}
}

// A configuration mixing Prometheus apps and HTTP probes, against a real
// Prometheus and loopback HTTP targets, end to end through the binary's run.
func TestServeMixedConfig(t *testing.T) {
	exp := promtest.NewExporter(t)
	exp.Set("cart", 1)
	exp.Set("search", 0)
	prom := promtest.Start(t, promtest.Job("demo", exp.Target()))
	prom.WaitForQuery(t, `demo_up`, promtest.SampleCount(2))

	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer web.Close()

	cfg := fmt.Sprintf(`scrape_interval: 1s
prometheus:
  - name: main
    url: %s
locations:
  - {name: Tel Aviv, latitude: 32.0853, longitude: 34.7818}
  - {name: London, latitude: 51.5072, longitude: -0.1276}
apps:
  - {name: cart, location: Tel Aviv, metric: 'demo_up{app="cart"}'}
  - {name: search, location: London, metric: 'demo_up{app="search"}'}
  - {name: homepage, location: Tel Aviv, http: {url: "%s/ok", body_contains: ok}}
  - {name: admin, location: London, http: {url: "%s/fail"}}
  - {name: legacy, location: London, http: {url: "http://%s/"}}
`, prom.URL(), web.URL, web.URL, availtest.ClosedPort(t))
	path := filepath.Join(t.TempDir(), "mixed.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startInProcess(t, path, noEnv)
	defer p.stop(t)

	want := map[string]string{"cart": "up", "search": "down", "homepage": "up", "admin": "down", "legacy": "unavailable"}
	var got map[string]string
	waitFor(t, "every app checked", 30*time.Second, func() bool {
		_, body := get(t, p.base+"/api/apps")
		var resp struct {
			Data []struct{ Name, Status, Metric, Prometheus_url string }
		}
		if err := json.Unmarshal([]byte(body), &resp); err != nil {
			t.Fatalf("/api/apps: %v: %s", err, body)
		}
		got = map[string]string{}
		for _, a := range resp.Data {
			got[a.Name] = a.Status
			wantURL := ""
			if a.Name == "cart" || a.Name == "search" {
				wantURL = prom.URL()
			}
			if a.Prometheus_url != wantURL {
				t.Errorf("%s: prometheus_url %q, want %q", a.Name, a.Prometheus_url, wantURL)
			}
		}
		return cmp.Equal(want, got)
	})
	_, body := get(t, p.base+"/api/locations/London")
	for _, w := range []string{`"up_count":0`, `"down_count":2`, `"unavailable_count":1`, `"availability_percentage":0`} {
		if !strings.Contains(body, w) {
			t.Errorf("/api/locations/London lacks %s: %s", w, body)
		}
	}
	_, body = get(t, p.base+"/api/status")
	for _, w := range []string{`"applications_up":2`, `"applications_down":2`, `"overall_availability":50`, `"prometheus_connectivity":"connected"`} {
		if !strings.Contains(body, w) {
			t.Errorf("/api/status lacks %s: %s", w, body)
		}
	}
}
