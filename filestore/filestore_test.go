package filestore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var fixedNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func newStore(t *testing.T, dir string) (*Store, *bytes.Buffer) {
	t.Helper()
	var log bytes.Buffer
	s, err := New(Options{Dir: dir, Logger: slog.New(slog.NewTextHandler(&log, nil)), Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	return s, &log
}

// load returns what Load handed to decode, and Load's error.
func load(t *testing.T, s *Store) ([]byte, error) {
	t.Helper()
	var got []byte
	err := s.Load(t.Context(), func(b []byte) error { got = bytes.Clone(b); return nil })
	return got, err
}

func TestSaveLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "nested")
	s, _ := newStore(t, dir)
	if got, err := load(t, s); err != nil || got != nil {
		t.Fatalf("Load of a new directory = %q, %v; want nothing, nil", got, err)
	}
	for _, data := range [][]byte{[]byte("first"), {}, bytes.Repeat([]byte{0xff}, 1<<16)} {
		if err := s.Save(t.Context(), data); err != nil {
			t.Fatal(err)
		}
		got, err := load(t, s)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("Load = %d bytes, %v; want the %d saved", len(got), err, len(data))
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != FileName {
		t.Errorf("directory holds %v, want only %s (no temporary files left)", entries, FileName)
	}
}

// Every way a file can be unreadable: Load starts afresh (an error, decode
// not called with it), logs a warning, and moves the file aside untouched.
func TestLoadUnreadable(t *testing.T) {
	good := frame([]byte("some state"))
	future := bytes.Clone(good)
	binary.BigEndian.PutUint32(future[8:], version+1)
	flipped := bytes.Clone(good)
	flipped[len(flipped)-1] ^= 1
	longer := bytes.Clone(good)
	binary.BigEndian.PutUint64(longer[12:], 1<<40)
	tests := []struct {
		name, file, why string
	}{
		{"empty", "", "empty"},
		{"shorter than the header", string(good[:10]), "shorter than the header"},
		{"truncated data", string(good[:len(good)-3]), "truncated"},
		{"garbage", "this is not a state file at all, not at all", "not an availmon state file"},
		{"future version", string(future), "format version 2"},
		{"flipped bit", string(flipped), "checksum mismatch"},
		{"length too large", string(longer), "truncated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, FileName), []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			s, log := newStore(t, dir)
			called := false
			err := s.Load(t.Context(), func([]byte) error { called = true; return nil })
			if err == nil || !strings.Contains(err.Error(), tc.why) {
				t.Errorf("Load error %v, want one saying %q", err, tc.why)
			}
			if called {
				t.Errorf("decode was called with an unreadable file")
			}
			checkSetAside(t, dir, tc.file, log.String())
		})
	}
}

// A file the decoder refuses (a newer availmon's encoding) is set aside too.
func TestLoadRefusedByDecoder(t *testing.T) {
	dir := t.TempDir()
	s, log := newStore(t, dir)
	if err := s.Save(t.Context(), []byte("v9 data")); err != nil {
		t.Fatal(err)
	}
	refusal := errors.New("encoding version 9")
	err := s.Load(t.Context(), func([]byte) error { return refusal })
	if !errors.Is(err, refusal) {
		t.Errorf("Load error %v, want it to wrap the decoder's", err)
	}
	checkSetAside(t, dir, string(frame([]byte("v9 data"))), log.String())
}

func checkSetAside(t *testing.T, dir, content, log string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, FileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the state file is still in place (%v)", err)
	}
	aside := filepath.Join(dir, FileName+".bad-20261122T120000.000Z")
	b, err := os.ReadFile(aside)
	if err != nil || string(b) != content {
		t.Errorf("moved-aside file: %q, %v; want the original content", b, err)
	}
	if !strings.Contains(log, "level=WARN") || !strings.Contains(log, "moved aside") {
		t.Errorf("log has no warning about the file:\n%s", log)
	}
}

// A file larger than MaxBytes is set aside without being read whole.
func TestLoadTooLarge(t *testing.T) {
	dir := t.TempDir()
	s, err := New(Options{Dir: dir, MaxBytes: 16})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(t.Context(), make([]byte, 17)); err != nil {
		t.Fatal(err)
	}
	if _, err := load(t, s); err == nil || !strings.Contains(err.Error(), "more than the 16 allowed") {
		t.Errorf("Load error %v, want too large", err)
	}
}

// A leftover temporary file of a save cut short is not the state; the
// state stays the last whole one.
func TestCrashDuringSave(t *testing.T) {
	dir := t.TempDir()
	s, _ := newStore(t, dir)
	if err := s.Save(t.Context(), []byte("whole")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName+".tmp-123"), frame([]byte("half"))[:20], 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := load(t, s); err != nil || string(got) != "whole" {
		t.Errorf("Load = %q, %v; want the last whole save", got, err)
	}
}

func TestSaveCancelled(t *testing.T) {
	s, _ := newStore(t, t.TempDir())
	s.saving <- struct{}{} // a save in progress
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Save(ctx, []byte("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("Save behind another with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestNewBadOptions(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Error("New without a directory succeeded")
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{Dir: file}); err == nil {
		t.Error("New with a file as directory succeeded")
	}
}

// FuzzUnframe: no file content panics the reader, and whatever it accepts
// is exactly what frame wrapped.
func FuzzUnframe(f *testing.F) {
	f.Add(frame([]byte("state")))
	f.Add([]byte{})
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		data, err := unframe(b)
		if err != nil {
			if !errors.Is(err, errBadFile) {
				t.Fatalf("error %v does not wrap errBadFile", err)
			}
			return
		}
		if !bytes.Equal(frame(data), b) {
			t.Fatalf("accepted a file that is not the frame of its data")
		}
	})
}

// frame is data with its header before it, as Save writes the file.
func frame(data []byte) []byte {
	h := header(data)
	return append(h[:], data...)
}
