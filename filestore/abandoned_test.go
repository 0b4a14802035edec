//go:build unix

package filestore

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/atomicfile"
)

// A FIFO at the state path does not block Load (opening it for reading
// would wait for a writer for ever): it is set aside like any file that is
// not a state, and the next Save writes the state in its place.
func TestLoadFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, FileName), 0o600); err != nil {
		t.Fatal(err)
	}
	s, log := newStore(t, dir)
	done := make(chan error, 1)
	go func() { _, err := load(t, s); done <- err }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second): // a hang, not a measurement
		t.Fatal("Load of a FIFO has not returned after 30s")
	}
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Load error %v, want one saying not a regular file", err)
	}
	fi, serr := os.Lstat(filepath.Join(dir, FileName+".bad-20261122T120000.000Z"))
	if serr != nil || fi.Mode().Type() != fs.ModeNamedPipe {
		t.Errorf("the FIFO was not moved aside: %v, %v", fi, serr)
	}
	if !strings.Contains(log.String(), "moved aside") {
		t.Errorf("log has no warning about the FIFO:\n%s", log)
	}
	if err := s.Save(t.Context(), []byte("state")); err != nil {
		t.Fatal(err)
	}
	if got, err := load(t, s); err != nil || string(got) != "state" {
		t.Errorf("Load after a Save = %q, %v", got, err)
	}
}

// New removes the temporary files of saves cut short, and nothing else:
// not a temporary file whose lock a live save holds, not files of other
// names, not what is not a regular file (a FIFO is not even opened).
func TestNewRemovesAbandoned(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("half a state"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(FileName)
	write(FileName + ".tmp-1")
	write(FileName + ".tmp-2")
	write(FileName + ".bad-20261122T120000.000Z")
	write("other.tmp-3")
	if err := os.Mkdir(filepath.Join(dir, FileName+".tmp-dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, FileName+".tmp-fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	live, err := atomicfile.CreateTemp(filepath.Join(dir, FileName)) // a save under way
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()

	_, log := newStore(t, dir)
	want := []string{FileName, FileName + ".bad-20261122T120000.000Z", FileName + ".tmp-dir",
		FileName + ".tmp-fifo", filepath.Base(live.Name()), "other.tmp-3"}
	slices.Sort(want)
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Errorf("after New the directory holds %v, want %v", got, want)
	}
	if n := strings.Count(log.String(), "removed the temporary file of a write cut short"); n != 2 {
		t.Errorf("log tells of %d removed files, want 2:\n%s", n, log)
	}
	if !strings.Contains(log.String(), "left a temporary file that a write under way holds") {
		t.Errorf("log does not tell of the file left alone:\n%s", log)
	}
}

// A process killed (SIGKILL) in the middle of a save leaves its temporary
// file: while the process lives, New leaves the file alone; once it is
// dead, New removes it.
func TestNewRemovesFileOfKilledSave(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSaving$")
	cmd.Env = append(os.Environ(), "FILESTORE_HELPER_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the helper did not say which file it writes: %v", err)
	}
	tmp := strings.TrimSpace(strings.TrimPrefix(line, "writing "))

	newStore(t, dir)
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("New removed the file of a save under way in a live process: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	newStore(t, dir)
	if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file of the killed save is still there (%v)", err)
	}
}

// TestHelperSaving is TestNewRemovesFileOfKilledSave's process that dies
// while saving: it starts a save as Save does, writes half of it, says so,
// and waits to be killed.
func TestHelperSaving(t *testing.T) {
	dir := os.Getenv("FILESTORE_HELPER_DIR")
	if dir == "" {
		t.Skip("a helper process of TestNewRemovesFileOfKilledSave")
	}
	f, err := atomicfile.CreateTemp(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	hdr := header([]byte("a state never finished"))
	if _, err := f.Write(hdr[:]); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("writing %s\n", f.Name())
	select {}
}

// names are the entries of dir, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
