package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const minimalFile = "locations:\n  - {name: Berlin, latitude: 52.52, longitude: 13.4}\n"

// What ReadFile refuses, and that it says what it found instead.
func TestReadFileRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		skipOrFail(t, fmt.Sprintf("no FIFOs here: %v", err))
	}
	huge := filepath.Join(dir, "huge.yaml")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: a file longer than the limit costs no disk.
	if err := f.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, tc := range []struct {
		name, path string
		want       error
		text       string
	}{
		{"fifo", fifo, ErrNotRegular, "a named pipe (FIFO)"},
		{"directory", dir, ErrNotRegular, "a directory"},
		{"symlink to a fifo", symlink(t, fifo), ErrNotRegular, "a named pipe (FIFO)"},
		{"huge", huge, ErrTooLarge, "67108865 bytes"},
		{"missing", filepath.Join(dir, "none.yaml"), os.ErrNotExist, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A FIFO nobody writes to: opening it to read would wait for a
			// writer for ever, so Load must refuse it unopened.
			_, err := Load(tc.path, env(nil))
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("Load(%s) = %v; want %v saying %q", tc.name, err, tc.want, tc.text)
			}
		})
	}
}

// skipOrFail skips the test when this machine lacks something it needs, or
// fails it under CI (the CI environment variable set), which must run it.
func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why + "; CI is set, so this test must run")
	}
	t.Skip(why)
}

func symlink(t *testing.T, target string) string {
	t.Helper()
	link := filepath.Join(t.TempDir(), "link.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// A ConfigMap volume: availmon.yaml -> ..data/availmon.yaml, ..data ->
// ..2026_01_01 (a directory), swapped by renaming a new ..data link over
// the old one. Load follows both links and sees the new file after a swap.
func TestReadFileConfigMapSymlinks(t *testing.T) {
	dir := t.TempDir()
	version := func(name, body string) {
		t.Helper()
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "availmon.yaml"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(dir, "..data_tmp")
		if err := os.Symlink(name, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
			t.Fatal(err)
		}
	}
	version("..2026_01_01", minimalFile)
	path := filepath.Join(dir, "availmon.yaml")
	if err := os.Symlink(filepath.Join("..data", "availmon.yaml"), path); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path, env(nil))
	if err != nil || len(cfg.Locations) != 1 {
		t.Fatalf("Load through the links = %+v, %v", cfg, err)
	}
	version("..2026_01_02", minimalFile+"  - {name: Paris, latitude: 48.86, longitude: 2.35}\n")
	cfg, err = Load(path, env(nil))
	if err != nil || len(cfg.Locations) != 2 {
		t.Fatalf("Load after the swap = %+v, %v", cfg, err)
	}
}
