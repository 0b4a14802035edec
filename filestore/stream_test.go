package filestore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
)

// writerTo writes its data in pieces of step bytes, as a stream encoder
// does, then returns err.
type writerTo struct {
	data  []byte
	step  int
	err   error
	calls int
}

func (w *writerTo) WriteTo(dst io.Writer) (int64, error) {
	w.calls++
	var n int64
	for p := w.data; len(p) > 0; {
		k := min(w.step, len(p))
		m, err := dst.Write(p[:k])
		n += int64(m)
		if err != nil {
			return n, err
		}
		p = p[k:]
	}
	return n, w.err
}

// A streamed save writes the file Save writes for the same data, byte for
// byte, so Load reads it back whole.
func TestSaveFromWritesWhatSaveWrites(t *testing.T) {
	data := bytes.Repeat([]byte("availmon state "), 100_000) // larger than the write buffer
	for _, tt := range []struct {
		name string
		data []byte
	}{{"empty", []byte{}}, {"small", []byte("state")}, {"large", data}} {
		t.Run(tt.name, func(t *testing.T) {
			saved, _ := newStore(t, t.TempDir())
			if err := saved.Save(t.Context(), tt.data); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(saved.Path())
			if err != nil {
				t.Fatal(err)
			}
			streamed, _ := newStore(t, t.TempDir())
			src := &writerTo{data: tt.data, step: 7919}
			if err := streamed.SaveFrom(t.Context(), src); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(streamed.Path())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("SaveFrom wrote %d bytes unlike Save's %d", len(got), len(want))
			}
			if src.calls != 1 {
				t.Errorf("WriteTo called %d times, want 1", src.calls)
			}
			back, err := load(t, streamed)
			if err != nil || !bytes.Equal(back, tt.data) {
				t.Fatalf("Load after SaveFrom = %d bytes, %v; want the %d saved", len(back), err, len(tt.data))
			}
		})
	}
}

// A stream that fails leaves the state saved before and no temporary file:
// a disk that filled up mid-save costs the save, not the state.
func TestSaveFromFailingKeepsTheState(t *testing.T) {
	dir := t.TempDir()
	s, _ := newStore(t, dir)
	if err := s.Save(t.Context(), []byte("before")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("encoder failed")
	err := s.SaveFrom(t.Context(), &writerTo{data: bytes.Repeat([]byte("x"), 1<<20), step: 4096, err: boom})
	if !errors.Is(err, boom) {
		t.Fatalf("SaveFrom = %v, want it to wrap %v", err, boom)
	}
	if got, err := load(t, s); err != nil || string(got) != "before" {
		t.Fatalf("Load after a failed SaveFrom = %q, %v; want the state before", got, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("directory after a failed SaveFrom holds %d files, want only %s", len(entries), FileName)
	}
}

// A streamed save waits for the one under way, and gives up when its
// context ends without calling WriteTo.
func TestSaveFromCancelled(t *testing.T) {
	s, _ := newStore(t, t.TempDir())
	s.saving <- struct{}{} // a save under way
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	src := &writerTo{data: []byte("state"), step: 1}
	if err := s.SaveFrom(ctx, src); !errors.Is(err, context.Canceled) {
		t.Fatalf("SaveFrom with a cancelled context = %v, want context.Canceled", err)
	}
	if src.calls != 0 {
		t.Errorf("WriteTo called %d times by a save that never began", src.calls)
	}
	if _, err := os.Stat(filepath.Join(s.dir, FileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a cancelled save wrote the state file: %v", err)
	}
}

// readSized reads whatever the reader holds, whether the size it was told
// is right, too small (the file grew) or too large (it shrank), in one
// buffer when the size is right.
func TestReadSized(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 10_000)
	for _, tt := range []struct {
		name string
		r    io.Reader
		size int64
	}{
		{"exact", bytes.NewReader(data), int64(len(data))},
		{"grew", bytes.NewReader(data), int64(len(data) / 3)},
		{"shrank", bytes.NewReader(data), int64(2 * len(data))},
		{"none", bytes.NewReader(nil), 0},
		{"one byte at a time", iotest.OneByteReader(bytes.NewReader(data[:1000])), 1000},
		{"data with EOF", iotest.DataErrReader(bytes.NewReader(data)), int64(len(data))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := data
			if tt.name == "none" {
				want = nil
			} else if tt.name == "one byte at a time" {
				want = data[:1000]
			}
			got, err := readSized(tt.r, tt.size)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("readSized = %d bytes, %v; want %d bytes", len(got), err, len(want))
			}
		})
	}
	boom := errors.New("disk error")
	if _, err := readSized(iotest.ErrReader(boom), 10); !errors.Is(err, boom) {
		t.Errorf("readSized of a failing reader = %v, want %v", err, boom)
	}
	if allocs := testing.AllocsPerRun(10, func() {
		_, _ = readSized(bytes.NewReader(data), int64(len(data)))
	}); allocs > 2 {
		t.Errorf("readSized of a reader of the size it was told made %.0f allocations, want 1 buffer (and the reader)", allocs)
	}
}

// FuzzSaveFrom: whatever a stream writes, in whatever pieces, Load reads
// back the same bytes.
func FuzzSaveFrom(f *testing.F) {
	f.Add([]byte("state"), uint16(1))
	f.Add([]byte{}, uint16(7))
	f.Add(bytes.Repeat([]byte{0xff}, 5000), uint16(4096))
	f.Fuzz(func(t *testing.T, data []byte, step uint16) {
		s, _ := newStore(t, t.TempDir())
		if err := s.SaveFrom(t.Context(), &writerTo{data: data, step: int(step) + 1}); err != nil {
			t.Fatal(err)
		}
		got, err := load(t, s)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("Load after SaveFrom = %d bytes, %v; want the %d saved", len(got), err, len(data))
		}
	})
}
