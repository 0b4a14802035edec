//go:build unix

package hmac_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/availmon/availmon/hmac"
)

// A FIFO at the replay file (opening it for reading would wait for a
// writer for ever) does not hold up NewVerifier: it is moved aside with a
// warning, and a new replay file keeps what the Verifier accepts.
func TestReplayFileFIFO(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "replay")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	now := t0
	var log bytes.Buffer
	type made struct {
		v   *hmac.Verifier
		err error
	}
	m := within(t, func() made {
		v, err := hmac.NewVerifier(hmac.VerifierOptions{Secrets: [][]byte{secret}, Now: func() time.Time { return now },
			SkewTolerance: time.Minute, ReplayFile: path, Logger: newTextLogger(&log)})
		return made{v, err}
	})
	if m.err != nil {
		t.Fatalf("NewVerifier with a FIFO as the replay file: %v", m.err)
	}
	v := m.v
	aside := path + ".bad-20261122T120000.000Z"
	if fi, err := os.Lstat(aside); err != nil || fi.Mode().Type() != fs.ModeNamedPipe {
		t.Errorf("the FIFO was not moved aside: %v, %v", fi, err)
	}
	if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "moved aside") {
		t.Errorf("no warning about the FIFO:\n%s", log.String())
	}
	if err := v.Verify(intervalReq(t, 1, t0)); err != nil {
		t.Fatal(err)
	}
	v2 := replayVerifier(t, path, &now, nil)
	if err := v2.Verify(intervalReq(t, 1, t0)); !errors.Is(err, hmac.ErrReplayed) {
		t.Errorf("replay after a restart on the new file: %v, want ErrReplayed", err)
	}
}

// A FIFO put in the replay file's place while the Verifier runs does not
// hold up Verify (opening it to append would wait for a reader for ever,
// holding every later write): the request is refused with ErrReplayFile.
func TestReplayFileBecomesFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "replay")
	now := t0
	v := replayVerifier(t, path, &now, nil)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	err := within(t, func() error { return v.Verify(intervalReq(t, 1, t0)) })
	if !errors.Is(err, hmac.ErrReplayFile) {
		t.Errorf("Verify with a FIFO as the replay file: %v, want ErrReplayFile", err)
	}
}

// NewVerifier removes the temporary files of rewrites that a crash cut
// short, and only those: not one whose lock a live rewrite holds, not the
// temporary files of other files.
func TestReplayFileRemovesAbandoned(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "availmon.replay")
	for _, name := range []string{"availmon.replay.tmp-1", "availmon.replay.tmp-2", "availmon.state.tmp-3"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("half a file"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	live, err := os.Create(filepath.Join(dir, "availmon.replay.tmp-live"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if err := syscall.Flock(int(live.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	now := t0
	replayVerifier(t, path, &now, nil)
	got, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i] = filepath.Base(got[i])
	}
	want := []string{"availmon.replay", "availmon.replay.tmp-live", "availmon.state.tmp-3"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("after NewVerifier the directory holds %v, want %v", got, want)
	}
}

// within returns f's result, or fails the test if f has not returned
// after a minute: a hang, not a measurement.
func within[T any](t *testing.T, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(time.Minute):
		t.Fatal("has not returned after a minute: it waits on the FIFO")
		panic("unreachable")
	}
}
