package main

import (
	"bufio"
	be "encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/availmon/availmon/filestore"
	"github.com/availmon/availmon/internal/promtest"
)

// proc is the real binary, running.
type proc struct {
	cmd     *exec.Cmd
	base    string
	log     promtest.SyncBuffer
	logDone chan struct{}
}

func startStored(t testing.TB, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(bin, append(args, "-listen", "127.0.0.1:0")...), logDone: make(chan struct{})}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); <-p.logDone; _ = p.cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		defer close(p.logDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			fmt.Fprintln(&p.log, sc.Text())
			if m := listenLine.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case a := <-addr:
		p.base = "http://" + a
	case <-time.After(30 * time.Second):
		t.Fatalf("no listening line within 30s; log:\n%s", p.log.String())
	}
	return p
}

// stop signals the process and waits for it to exit.
func (p *proc) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { <-p.logDone; done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if sig == syscall.SIGTERM && err != nil {
			t.Errorf("exit after SIGTERM: %v; log:\n%s", err, p.log.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("still running 30s after %s", sig)
	}
}

// getJSON decodes the data member of a GET answer.
func getJSON[T any](t *testing.T, url string) T {
	t.Helper()
	var out struct{ Data T }
	code, body := get(t, url)
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", url, code, body)
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("GET %s: %v: %s", url, err, body)
	}
	return out.Data
}

type appAnswer struct {
	Status    string
	LastCheck *string `json:"last_check"`
	History   []struct {
		Timestamp string
		Status    string
	}
}

type summaryAnswer struct {
	TotalRequests int64 `json:"total_requests"`
	Apps          []struct {
		Name   string
		Uptime *float64 `json:"uptime_24h"`
	} `json:"apps_summary"`
}

type historyAnswer struct {
	DataPoints []struct {
		Timestamp    string
		Availability *float64 `json:"overall_availability"`
	} `json:"data_points"`
}

// what the tests compare before and after a restart
type observed struct {
	web     appAnswer
	summary summaryAnswer
	history historyAnswer
}

func observe(t *testing.T, base string) observed {
	return observed{
		web:     getJSON[appAnswer](t, base+"/api/apps/web"),
		summary: getJSON[summaryAnswer](t, base+"/api/metrics/summary"),
		history: getJSON[historyAnswer](t, base+"/api/status/history?period=1h&resolution=1m"),
	}
}

// storageConfig has two HTTP-probe apps against a loopback server: one up,
// one down.
// openWrites is the configuration at path with unauthenticated writes
// allowed, for tests of what a write does rather than who may send it.
func openWrites(t *testing.T, path string) string {
	t.Helper()
	return writeTemp(t, readFile(t, path)+openWritesYAML)
}

const openWritesYAML = "authentication:\n  allow_unauthenticated_writes: true\n"

func storageConfig(t *testing.T, saveInterval string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(srv.Close)
	body := fmt.Sprintf(`scrape_interval: 1s
storage:
  save_interval: %s
locations:
  - {name: Tel Aviv, latitude: 32.0853, longitude: 34.7818}
apps:
  - {name: web, location: Tel Aviv, http: {url: "%s/ok"}}
  - {name: broken, location: Tel Aviv, http: {url: "%s/fail"}}
`, saveInterval, srv.URL, srv.URL)
	path := filepath.Join(t.TempDir(), "availmon.yaml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkKept fails unless everything in before is still in after: every
// check of the app's history, the summary counters, every non-null bucket.
func checkKept(t *testing.T, before, after observed) {
	t.Helper()
	have := map[string]bool{}
	for _, h := range after.web.History {
		have[h.Timestamp+h.Status] = true
	}
	for _, h := range before.web.History {
		if !have[h.Timestamp+h.Status] {
			t.Errorf("the check of %s (%s) is lost after the restart", h.Timestamp, h.Status)
		}
	}
	if after.summary.TotalRequests < before.summary.TotalRequests {
		t.Errorf("total_requests %d after the restart, %d before", after.summary.TotalRequests, before.summary.TotalRequests)
	}
	avail := map[string]bool{}
	for _, p := range after.history.DataPoints {
		avail[p.Timestamp] = p.Availability != nil
	}
	for _, p := range before.history.DataPoints {
		if p.Availability != nil && !avail[p.Timestamp] {
			t.Errorf("the history bucket %s is null after the restart", p.Timestamp)
		}
	}
}

// SIGKILL loses at most the save interval: everything seen before the last
// save is there after a restart, and the apps show their last state with
// its real last_check before their first new check.
func TestBinaryKilledRemembers(t *testing.T) {
	bin := binary(t)
	cfg, dir := storageConfig(t, "1s"), t.TempDir()
	state := filepath.Join(dir, filestore.FileName)
	p := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	waitFor(t, "five checks of web", 30*time.Second, func() bool {
		return len(getJSON[appAnswer](t, p.base+"/api/apps/web").History) >= 5
	})
	before := observe(t, p.base)
	seen := time.Now()
	waitFor(t, "a save after the observation", 30*time.Second, func() bool {
		fi, err := os.Stat(state)
		return err == nil && fi.ModTime().After(seen)
	})
	p.stop(t, syscall.SIGKILL)

	// Start again with a 1h interval in the file: no new check comes in the
	// way of what the restored state says.
	cfg2 := strings.Replace(readFile(t, cfg), "scrape_interval: 1s", "scrape_interval: 1h", 1)
	q := startStored(t, bin, "-config", writeTemp(t, cfg2), "-storage.path", dir)
	after := observe(t, q.base)
	checkKept(t, before, after)
	if after.web.Status != "up" || after.web.LastCheck == nil || *after.web.LastCheck < *before.web.LastCheck {
		t.Errorf("web right after the restart: %s at %v, want up with a last_check no older than %s",
			after.web.Status, after.web.LastCheck, *before.web.LastCheck)
	}
	if !strings.Contains(q.log.String(), "restored the saved state") {
		t.Errorf("the log does not say the state was restored:\n%s", q.log.String())
	}
}

// SIGTERM loses nothing: with a save interval longer than the test, the
// last save on shutdown alone keeps every check, and the interval set
// through the API.
func TestBinaryTerminatedLosesNothing(t *testing.T) {
	bin := binary(t)
	cfg, dir := openWrites(t, storageConfig(t, "1h")), t.TempDir()
	p := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	waitFor(t, "three checks of web", 30*time.Second, func() bool {
		return len(getJSON[appAnswer](t, p.base+"/api/apps/web").History) >= 3
	})
	// Stop the cycles, so that what is seen now is everything there is.
	resp, err := http.Post(p.base+"/api/scrape-interval", "application/json", strings.NewReader(`{"interval":"1h"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /api/scrape-interval = %d", resp.StatusCode)
	}
	before := observe(t, p.base)
	p.stop(t, syscall.SIGTERM)

	q := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	after := observe(t, q.base)
	// A cycle under way when the interval changed may have ended after the
	// observation, and the restarted binary checks at once: at most two
	// checks more.
	if n, m := len(before.web.History), len(after.web.History); m < n || m > n+2 {
		t.Errorf("web has %d checks after the restart, %d before", m, n)
	}
	checkKept(t, before, after)
	apps := len(before.summary.Apps)
	if d := after.summary.TotalRequests - before.summary.TotalRequests; d != 0 && d != int64(apps) && d != 2*int64(apps) {
		t.Errorf("total_requests %d after, %d before: want the same, or one cycle more", after.summary.TotalRequests, before.summary.TotalRequests)
	}
	iv := getJSON[struct {
		Interval string `json:"scrape_interval"`
	}](t, q.base+"/api/config")
	if iv.Interval != "1h" {
		t.Errorf("scrape_interval after the restart = %q, want the 1h set through the API", iv.Interval)
	}
}

// A corrupt, truncated, empty or future-version state file: the binary
// starts, logs a warning, and moves the file aside.
func TestBinaryBadStateFile(t *testing.T) {
	bin := binary(t)
	cfg := storageConfig(t, "1h")
	good := t.TempDir()
	p := startStored(t, bin, "-config", cfg, "-storage.path", good)
	waitFor(t, "a check of web", 30*time.Second, func() bool {
		return len(getJSON[appAnswer](t, p.base+"/api/apps/web").History) >= 1
	})
	p.stop(t, syscall.SIGTERM)
	whole := []byte(readFile(t, filepath.Join(good, filestore.FileName)))
	future := slices.Clone(whole)
	be.BigEndian.PutUint32(future[8:], 99)
	corrupt := slices.Clone(whole)
	corrupt[len(corrupt)/2] ^= 0x55

	for name, content := range map[string][]byte{
		"corrupt": corrupt, "truncated": whole[:len(whole)-5], "empty": {}, "future version": future,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, filestore.FileName)
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			q := startStored(t, bin, "-config", cfg, "-storage.path", dir)
			waitFor(t, "/health 200", 30*time.Second, func() bool { code, _ := get(t, q.base+"/health"); return code == http.StatusOK })
			if !strings.Contains(q.log.String(), "level=WARN msg=\"state file unreadable: moved aside") {
				t.Errorf("no warning about the state file in the log:\n%s", q.log.String())
			}
			aside, _ := filepath.Glob(path + ".bad-*")
			if len(aside) != 1 || readFile(t, aside[0]) != string(content) {
				t.Errorf("moved-aside files %v, want one with the original content", aside)
			}
			if web := getJSON[appAnswer](t, q.base+"/api/apps/web"); len(web.History) > 1 {
				t.Errorf("web has %d checks: something was read from the bad file", len(web.History))
			}
			q.stop(t, syscall.SIGTERM)
		})
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "availmon.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
