package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/internal/promtest"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// binary builds the availmon binary once per test run.
func binary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	buildOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		dir, err := os.MkdirTemp("", "availmon-bin")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "availmon")
		if out, err := exec.Command(goTool, "build", "-o", builtBin, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// running is the real binary, started by startBinary.
type running struct {
	cmd     *exec.Cmd
	base    string
	log     *promtest.SyncBuffer
	logDone chan struct{}
}

// stop sends SIGTERM and waits for the exit, its log read to the end.
func (r *running) stop() error {
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-r.logDone:
	case <-time.After(20 * time.Second):
		_ = r.cmd.Process.Kill()
		<-r.logDone
	}
	return r.cmd.Wait()
}

func startBinary(t *testing.T, args ...string) *running {
	t.Helper()
	if !slices.Contains(args, "-storage.path") {
		args = append(args, "-storage.path", t.TempDir()) // not data/ in the source tree
	}
	cmd := exec.Command(binary(t), append(args, "-listen", "127.0.0.1:0")...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logDone := make(chan struct{})
	r := &running{cmd: cmd, log: new(promtest.SyncBuffer), logDone: logDone}
	addrCh := make(chan string, 1)
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			fmt.Fprintln(r.log, sc.Text())
			if m := listenLine.FindStringSubmatch(sc.Text()); m != nil {
				addrCh <- m[1]
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = r.stop()
		}
	})
	select {
	case addr := <-addrCh:
		r.base = "http://" + addr
	case <-time.After(30 * time.Second):
		t.Fatalf("no listening line within 30s; log:\n%s", r.log.String())
	}
	return r
}

// apps returns name -> status from /api/apps.
func apps(t *testing.T, base string) map[string]string {
	t.Helper()
	_, body := get(t, base+"/api/apps")
	var resp struct {
		Data []struct{ Name, Status string }
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatalf("/api/apps: %v: %s", err, body)
	}
	out := map[string]string{}
	for _, a := range resp.Data {
		out[a.Name] = a.Status
	}
	return out
}

func historyLen(t *testing.T, base, app string) int {
	t.Helper()
	_, body := get(t, base+"/api/apps/"+app)
	var resp struct{ Data struct{ History []any } }
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatalf("/api/apps/%s: %v: %s", app, err, body)
	}
	return len(resp.Data.History)
}

// metricValue reads one sample of /metrics; ok is false when it is absent.
func metricValue(t *testing.T, base, series string) (float64, bool) {
	t.Helper()
	_, body := get(t, base+"/metrics")
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatalf("%s: %v", series, err)
	}
	return v, true
}

const reloadConfigHead = `scrape_interval: 1s
prometheus:
  - name: main
    url: %s
locations:
  - {name: Tel Aviv, latitude: 32.0853, longitude: 34.7818}
  - {name: London, latitude: 51.5072, longitude: -0.1276}
`

// SIGHUP with an added, a removed and a changed app, then with a broken
// file, against the real binary and a real Prometheus: the API, /metrics,
// the history of the apps that stayed, /api/ws and the reload metrics are
// right at each step.
func TestReloadSIGHUP(t *testing.T) {
	exp := promtest.NewExporter(t)
	for app, v := range map[string]float64{"cart": 1, "search": 0, "billing": 1, "payments": 1} {
		exp.Set(app, v)
	}
	prom := promtest.Start(t, promtest.Job("demo", exp.Target()))
	prom.WaitForQuery(t, `demo_up`, promtest.SampleCount(4))
	head := fmt.Sprintf(reloadConfigHead, prom.URL())
	path := filepath.Join(t.TempDir(), "availmon.yaml")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(head + `apps:
  - {name: cart, location: Tel Aviv, metric: 'demo_up{app="cart"}'}
  - {name: search, location: London, metric: 'demo_up{app="search"}'}
  - {name: billing, location: London, metric: 'demo_up{app="billing"}'}
`)
	r := startBinary(t, "-config", path)
	waitFor(t, "the first checks", 30*time.Second, func() bool {
		return cmp.Equal(map[string]string{"cart": "up", "search": "down", "billing": "up"}, apps(t, r.base))
	})
	if v, ok := metricValue(t, r.base, "availmon_config_last_reload_successful"); !ok || v != 1 {
		t.Errorf("at start: availmon_config_last_reload_successful %v (present %v), want 1", v, ok)
	}
	startTS, _ := metricValue(t, r.base, "availmon_config_last_reload_success_timestamp_seconds")

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(r.base, "http")+"/api/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	configUpdates := make(chan map[string]any, 10)
	go func() {
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				close(configUpdates)
				return
			}
			var msg struct {
				Type string
				Data map[string]any
			}
			if json.Unmarshal(b, &msg) == nil && msg.Type == "config_update" {
				configUpdates <- msg.Data
			}
		}
	}()
	// Let cart gather a few checks to keep.
	waitFor(t, "three checks of cart", 30*time.Second, func() bool { return historyLen(t, r.base, "cart") >= 3 })
	before := historyLen(t, r.base, "cart")

	// Step 1: search removed, payments added, billing moved and re-queried;
	// max_parallel needs a restart.
	time.Sleep(1100 * time.Millisecond) // a distinct mtime-free second for the success timestamp
	write(head + `max_parallel: 4
apps:
  - {name: cart, location: Tel Aviv, metric: 'demo_up{app="cart"}'}
  - {name: billing, location: Tel Aviv, metric: 'demo_up{app="billing"} * 1'}
  - {name: payments, location: London, metric: 'demo_up{app="payments"}'}
`)
	if err := r.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	var upd map[string]any
	select {
	case upd = <-configUpdates:
	case <-ctx.Done():
		t.Fatalf("no config_update on /api/ws; log:\n%s", r.log.String())
	}
	want := map[string]any{
		"apps_added": []any{"payments"}, "apps_removed": []any{"search"}, "apps_changed": []any{"billing"},
		"locations_added": []any{}, "locations_removed": []any{}, "locations_changed": []any{},
		"backends_added": []any{}, "backends_removed": []any{}, "backends_changed": []any{}, "total_apps": 3.0,
	}
	if d := cmp.Diff(want, upd); d != "" {
		t.Errorf("config_update (-want +got):\n%s", d)
	}
	got := apps(t, r.base)
	if _, ok := got["search"]; ok || len(got) != 3 || got["cart"] != "up" {
		t.Errorf("apps right after the reload: %v", got)
	}
	if n := historyLen(t, r.base, "cart"); n < before {
		t.Errorf("cart's history shrank from %d to %d across the reload", before, n)
	}
	if code, _ := get(t, r.base+"/api/apps/search"); code != http.StatusNotFound {
		t.Errorf("removed app: %d, want 404", code)
	}
	if _, ok := metricValue(t, r.base, `availmon_up{app="search",location="London"}`); ok {
		t.Error("/metrics still has the removed app")
	}
	if v, _ := metricValue(t, r.base, "availmon_config_last_reload_successful"); v != 1 {
		t.Errorf("after a good reload: availmon_config_last_reload_successful %v", v)
	}
	okTS, _ := metricValue(t, r.base, "availmon_config_last_reload_success_timestamp_seconds")
	if okTS <= startTS {
		t.Errorf("success timestamp %v did not move past the start's %v", okTS, startTS)
	}
	waitFor(t, "payments checked", 30*time.Second, func() bool {
		return cmp.Equal(map[string]string{"cart": "up", "billing": "up", "payments": "up"}, apps(t, r.base))
	})
	_, body := get(t, r.base+"/api/locations/Tel%20Aviv")
	if !strings.Contains(body, `"name":"billing"`) {
		t.Errorf("billing did not move to Tel Aviv: %s", body)
	}
	// The log lines are written after the reload is applied: wait for them.
	for _, w := range []string{`msg="configuration reloaded"`, `setting=max_parallel`} {
		waitFor(t, "log line "+w, 30*time.Second, func() bool { return strings.Contains(r.log.String(), w) })
	}

	// Step 2: a broken file changes nothing and says where it is broken.
	write(head + `apps:
  - {name: cart, location: Atlantis, metric: 'demo_up{app="cart"}'}
  - {name: cart, location: Tel Aviv, metric: 'demo_up{app="cart"}'}
`)
	if err := r.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the failed reload", 30*time.Second, func() bool {
		v, _ := metricValue(t, r.base, "availmon_config_last_reload_successful")
		return v == 0
	})
	// The metric is set before the problems are logged: wait for them.
	for _, w := range []string{`availmon.yaml:9: `, `availmon.yaml:10: `, "Atlantis"} {
		waitFor(t, "log line "+w, 30*time.Second, func() bool { return strings.Contains(r.log.String(), w) })
	}
	if ts, _ := metricValue(t, r.base, "availmon_config_last_reload_success_timestamp_seconds"); ts != okTS {
		t.Errorf("a failed reload moved the success timestamp: %v -> %v", okTS, ts)
	}
	if got := apps(t, r.base); !cmp.Equal(map[string]string{"cart": "up", "billing": "up", "payments": "up"}, got) {
		t.Errorf("apps after a broken file: %v", got)
	}
	select {
	case upd, ok := <-configUpdates:
		if ok {
			t.Errorf("a broken file sent config_update %v", upd)
		}
	case <-time.After(2 * time.Second):
	}
}

// POST /-/reload: off without the flag; with it, signed only, and a broken
// file is a 400 listing every problem with its line.
func TestReloadEndpoint(t *testing.T) {
	const secret = "0123456789abcdef0123456789abcdef-test"
	lookup := func(k string) (string, bool) { return secret, k == "SECRET" }
	auth := "authentication:\n  hmac:\n    enabled: true\n    secret: ${SECRET}\n"
	path := writeConfig(t, auth)

	var stderr strings.Builder
	if code := run(t.Context(), []string{"-config", writeConfig(t, ""), "-listen", "127.0.0.1:0", "-web.enable-reload"}, io.Discard, &stderr, noEnv); code != exitError ||
		!strings.Contains(stderr.String(), "needs authentication.hmac") {
		t.Errorf("-web.enable-reload without hmac: exit %d, %q", code, stderr.String())
	}

	ctx, cancel := context.WithCancel(t.Context())
	p := &inProcess{log: new(promtest.SyncBuffer), cancel: cancel, done: make(chan int, 1)}
	t.Cleanup(cancel)
	go func() {
		p.done <- run(ctx, []string{"-config", path, "-listen", "127.0.0.1:0", "-web.enable-reload", "-storage.path", t.TempDir()}, io.Discard, p.log, lookup)
	}()
	waitFor(t, "the listening log line", 10*time.Second, func() bool {
		m := listenLine.FindStringSubmatch(p.log.String())
		if m != nil {
			p.base = "http://" + m[1]
		}
		return m != nil
	})
	defer p.stop(t)

	post := func(client *http.Client, body string) (int, string) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, p.base+"/-/reload", strings.NewReader(body))
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
	signed := &http.Client{Transport: &hmac.Transport{Secret: []byte(secret)}}
	if code, body := post(http.DefaultClient, ""); code != http.StatusForbidden || !strings.Contains(body, "MISSING_AUTH_HEADERS") {
		t.Errorf("unsigned POST /-/reload = %d %s; want 403", code, body)
	}
	if code, body := post(signed, "x"); code != http.StatusBadRequest || !strings.Contains(body, "takes no body") {
		t.Errorf("POST /-/reload with a body = %d %s; want 400", code, body)
	}

	cfg, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	added := strings.Replace(string(cfg), "apps:\n", "apps:\n  - {name: extra, location: Tel Aviv, metric: 'up'}\n", 1)
	if err := os.WriteFile(path, []byte(strings.Replace(added, "scrape_timeout: 500ms", "scrape_timeout: 750ms", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, body := post(signed, "")
	var ok struct {
		Data struct {
			AppsAdded     []string `json:"apps_added"`
			RestartNeeded []string `json:"restart_needed"`
			TotalApps     int      `json:"total_apps"`
		}
	}
	if err := json.Unmarshal([]byte(body), &ok); err != nil || code != http.StatusOK ||
		!cmp.Equal([]string{"extra"}, ok.Data.AppsAdded) || !cmp.Equal([]string{"scrape_timeout"}, ok.Data.RestartNeeded) || ok.Data.TotalApps != 3 {
		t.Errorf("signed POST /-/reload = %d %s; want 200, extra added, scrape_timeout needing a restart", code, body)
	}

	if err := os.WriteFile(path, []byte(added+"bogus_key: 1\nmax_parallel: -1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The same signed request within one second is a replay: the next
	// reload is signed in the next second.
	time.Sleep(1100 * time.Millisecond)
	code, body = post(signed, "")
	var bad struct {
		Error struct {
			Code    string
			Details []string
		}
	}
	if err := json.Unmarshal([]byte(body), &bad); err != nil || code != http.StatusBadRequest || bad.Error.Code != "VALIDATION_ERROR" || len(bad.Error.Details) < 2 {
		t.Fatalf("POST /-/reload of a broken file = %d %s; want 400 with a detail per problem", code, body)
	}
	for _, d := range bad.Error.Details {
		if !regexp.MustCompile(`\.yaml:\d+: `).MatchString(d) {
			t.Errorf("detail %q has no line", d)
		}
	}
	if _, body := get(t, p.base+"/api/config"); !strings.Contains(body, `"total_apps":3`) {
		t.Errorf("after the failed reload: %s", body)
	}
}
