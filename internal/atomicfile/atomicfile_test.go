//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// OpenRegular opens regular files, through symlinks too, and refuses the
// rest without waiting, saying what it found.
func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	file, fifo, link := filepath.Join(dir, "file"), filepath.Join(dir, "fifo"), filepath.Join(dir, "link")
	if err := os.WriteFile(file, []byte("content"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("file", link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		flag       int
		want       error
		text       string
	}{
		{"file", file, os.O_RDONLY, nil, ""},
		{"append", file, os.O_WRONLY | os.O_APPEND, nil, ""},
		{"symlink to a file", link, os.O_RDONLY, nil, ""},
		{"fifo", fifo, os.O_RDONLY, ErrNotRegular, "p---------"},
		{"fifo to append", fifo, os.O_WRONLY | os.O_APPEND, ErrNotRegular, "p---------"},
		{"directory", dir, os.O_RDONLY, ErrNotRegular, "d---------"},
		{"missing", filepath.Join(dir, "none"), os.O_RDONLY, fs.ErrNotExist, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, fi, err := OpenRegular(tc.path, tc.flag)
			if tc.want == nil {
				if err != nil || fi.Size() != int64(len("content")) {
					t.Fatalf("OpenRegular = %v, %v", fi, err)
				}
				f.Close()
				return
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("OpenRegular = %v; want %v saying %q", err, tc.want, tc.text)
			}
		})
	}
}

// Write replaces the file with the parts and leaves no temporary file.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	for _, content := range []string{"first", "second, longer"} {
		if err := Write(path, []byte(content[:3]), []byte(content[3:])); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != content {
			t.Errorf("file holds %q, %v; want %q", b, err, content)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 1 {
		t.Errorf("directory holds %v (%v), want the file alone", entries, err)
	}
}
