package main

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/availmon/availmon/filestore"
)

// A FIFO at the state path does not hold up the start (opening it would
// wait for a writer): the binary serves /health, moves the FIFO aside, and
// a SIGTERM ends it, with the last save where the FIFO was.
func TestBinaryStateFIFO(t *testing.T) {
	bin := binary(t)
	cfg, dir := storageConfig(t, "1h"), t.TempDir()
	state := filepath.Join(dir, filestore.FileName)
	if err := syscall.Mkfifo(state, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	waitFor(t, "/health 200", 30*time.Second, func() bool { code, _ := get(t, p.base+"/health"); return code == http.StatusOK })
	aside, _ := filepath.Glob(state + ".bad-*")
	if len(aside) != 1 {
		t.Errorf("moved-aside files %v, want the FIFO", aside)
	}
	p.stop(t, syscall.SIGTERM)
	if fi, err := os.Lstat(state); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("after SIGTERM the state path holds %v (%v), want the last save", fi, err)
	}
}

// The temporary files of saves cut short are removed at start, except one
// whose lock a live process holds (here the test, as a process still
// saving into the directory would).
func TestBinaryRemovesAbandonedTemp(t *testing.T) {
	bin := binary(t)
	cfg, dir := storageConfig(t, "1h"), t.TempDir()
	for _, name := range []string{".tmp-1", ".tmp-2"} {
		if err := os.WriteFile(filepath.Join(dir, filestore.FileName+name), []byte("half a state"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	live := filepath.Join(dir, filestore.FileName+".tmp-live")
	f, err := os.Create(live)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	p := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	for _, name := range []string{".tmp-1", ".tmp-2"} {
		if _, err := os.Stat(filepath.Join(dir, filestore.FileName+name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there after the start (%v)", name, err)
		}
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the locked temporary file was removed: %v", err)
	}
	p.stop(t, syscall.SIGTERM)
}

// hmacConfig is storageConfig with HMAC authentication, whose verifier
// keeps its replay file in the storage directory.
func hmacConfig(t *testing.T) string {
	return writeTemp(t, readFile(t, storageConfig(t, "1h"))+
		"authentication:\n  hmac:\n    enabled: true\n    secret: "+replaySecret+"\n")
}

// A FIFO at the replay file does not hold up the start either: the binary
// serves /health, moves the FIFO aside, keeps the signatures it accepts in
// a new replay file, and a SIGTERM ends it.
func TestBinaryReplayFIFO(t *testing.T) {
	bin := binary(t)
	cfg, dir := hmacConfig(t), t.TempDir()
	replay := filepath.Join(dir, "availmon.replay")
	if err := syscall.Mkfifo(replay, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	waitFor(t, "/health 200", 30*time.Second, func() bool { code, _ := get(t, p.base+"/health"); return code == http.StatusOK })
	if aside, _ := filepath.Glob(replay + ".bad-*"); len(aside) != 1 {
		t.Errorf("moved-aside files %v, want the FIFO", aside)
	}
	w := signWrite(t, "2s", time.Now())
	if code, body := w.send(t, p.base); code != http.StatusOK {
		t.Errorf("signed POST = %d %s", code, body)
	}
	p.stop(t, syscall.SIGTERM)
	if fi, err := os.Lstat(replay); err != nil || !fi.Mode().IsRegular() || fi.Size() == 8 {
		t.Errorf("after SIGTERM the replay path holds %v (%v), want a replay file with the signature", fi, err)
	}
}

// The temporary files of replay file rewrites cut short by a SIGKILL are
// removed at start, except one whose lock a live process holds.
func TestBinaryRemovesAbandonedReplayTemp(t *testing.T) {
	bin := binary(t)
	cfg, dir := hmacConfig(t), t.TempDir()
	for _, name := range []string{".tmp-1", ".tmp-2"} {
		if err := os.WriteFile(filepath.Join(dir, "availmon.replay"+name), []byte("half a file"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	live := filepath.Join(dir, "availmon.replay.tmp-live")
	f, err := os.Create(live)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	p := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	for _, name := range []string{".tmp-1", ".tmp-2"} {
		if _, err := os.Stat(filepath.Join(dir, "availmon.replay"+name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there after the start (%v)", name, err)
		}
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the locked temporary file was removed: %v", err)
	}
	p.stop(t, syscall.SIGTERM)
}

type storageAnswer struct {
	System  string `json:"system_status"`
	Storage *struct {
		LastSave            *string `json:"last_save"`
		LastSaveError       *string `json:"last_save_error"`
		ConsecutiveFailures int     `json:"consecutive_failures"`
	}
}

var saveFailures = regexp.MustCompile(`(?m)^availmon_state_save_failures_total (\S+)$`)

// failures is availmon_state_save_failures_total on /metrics.
func failures(t *testing.T, base string) float64 {
	t.Helper()
	_, body := get(t, base+"/metrics")
	m := saveFailures.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("/metrics has no availmon_state_save_failures_total:\n%s", body)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Saves that fail (the state directory replaced by a file: a failure even
// for root, unlike a read-only mode) show on /metrics and /api/status, and
// make system_status degraded; once the directory is back, the next save
// succeeds and the status recovers.
func TestBinarySaveFailures(t *testing.T) {
	bin := binary(t)
	cfg, dir := storageConfig(t, "1s"), filepath.Join(t.TempDir(), "data")
	p := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	status := func() storageAnswer { return getJSON[storageAnswer](t, p.base+"/api/status") }
	waitFor(t, "a successful save", 30*time.Second, func() bool {
		s := status()
		return s.Storage != nil && s.Storage.LastSave != nil && s.System == "healthy"
	})
	if n := failures(t, p.base); n != 0 {
		t.Errorf("%g save failures before any trouble", n)
	}
	if err := os.Rename(dir, dir+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var failing storageAnswer
	waitFor(t, "a failed save", 30*time.Second, func() bool {
		failing = status()
		return failing.Storage.ConsecutiveFailures > 0
	})
	if failing.System != "degraded" || failing.Storage.LastSaveError == nil || failing.Storage.LastSave == nil {
		t.Errorf("while saves fail: system_status %s, storage %+v; want degraded, the error and the last success", failing.System, *failing.Storage)
	}
	if n := failures(t, p.base); n < 1 {
		t.Errorf("availmon_state_save_failures_total %g while saves fail", n)
	}
	lastGood := *failing.Storage.LastSave

	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir+".moved", dir); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a save after the directory came back", 30*time.Second, func() bool {
		s := status()
		return s.Storage.ConsecutiveFailures == 0 && *s.Storage.LastSave > lastGood
	})
	if s := status(); s.System != "healthy" || s.Storage.LastSaveError != nil {
		t.Errorf("after a successful save: system_status %s, last_save_error %v; want healthy, none", s.System, s.Storage.LastSaveError)
	}
	if n := failures(t, p.base); n < 1 {
		t.Errorf("availmon_state_save_failures_total went back to %g: a counter never does", n)
	}
	p.stop(t, syscall.SIGTERM)
}
