package atomicfile

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// tempInfix follows a file's name in the names of its temporary files.
const tempInfix = ".tmp-"

// ErrNotRegular: what OpenRegular found at a path, symlinks followed, is
// not a regular file (a FIFO, a directory, a device).
var ErrNotRegular = errors.New("not a regular file")

// errInUse says a temporary file's lock is held: a live write holds it.
var errInUse = errors.New("a write under way holds it")

// Write replaces path with the parts written one after the other, so that
// after a crash path holds its old content or the new one, whole.
func Write(path string, parts ...[]byte) error {
	return WriteFunc(path, func(f *os.File) error {
		for _, b := range parts {
			if _, err := f.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
}

// WriteFunc replaces path with what write writes to a temporary file, as
// Write does: the file is synced, renamed over path, and the directory
// synced. An error of write leaves path as it was.
func WriteFunc(path string, write func(f *os.File) error) (err error) {
	f, err := CreateTemp(path)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := write(f); err != nil {
		return fmt.Errorf("writing %s: %w", f.Name(), err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", f.Name(), err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// CreateTemp creates a temporary file for a write of path, in path's
// directory, and takes its lock, which tells RemoveAbandoned in another
// process that the file is being written. A file system without locks
// still writes.
func CreateTemp(path string) (*os.File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+tempInfix+"*")
	if err != nil {
		return nil, err
	}
	_ = lock(f)
	return f, nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

// RemoveAbandoned removes the temporary files that writes of path cut
// short by a crash left: a crash loop would otherwise fill the disk with
// them. Only regular files named as CreateTemp names them are candidates,
// and only those whose lock nobody holds are removed. What it removes,
// leaves or cannot remove is logged.
func RemoveAbandoned(path string, log *slog.Logger) {
	dir, prefix := filepath.Dir(path), filepath.Base(path)+tempInfix
	entries, err := os.ReadDir(dir)
	if err != nil {
		log.Warn("cannot look for temporary files of earlier writes", "dir", dir, "err", err)
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		tmp := filepath.Join(dir, e.Name())
		switch err := removeUnlocked(tmp); {
		case errors.Is(err, errInUse):
			log.Info("left a temporary file that a write under way holds", "path", tmp)
		case err != nil:
			log.Warn("cannot remove the temporary file of an earlier write", "path", tmp, "err", err)
		default:
			log.Info("removed the temporary file of a write cut short", "path", tmp)
		}
	}
}

// removeUnlocked removes path while it holds its lock, unless another open
// file holds it. The file is opened without waiting and looked at again:
// the directory entry may have changed since it was listed.
func removeUnlocked(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|openNoWait, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return cmp.Or(err, ErrNotRegular)
	}
	ok, err := tryLock(f)
	if err != nil {
		return err
	}
	if !ok {
		return errInUse
	}
	return os.Remove(path)
}

// OpenRegular opens path with flag (os.O_RDONLY, os.O_WRONLY|os.O_APPEND,
// ...) if it is a regular file once symlinks are followed, and returns it
// with its FileInfo. Anything else is an error wrapping ErrNotRegular and
// naming what was found. Opening a FIFO waits for the other end, for ever,
// and no context or signal ends the wait: so the type is looked at first,
// the open does not wait in case it changed in between, and the opened
// file is looked at again.
func OpenRegular(path string, flag int) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, notRegular(path, fi)
	}
	f, err := os.OpenFile(path, flag|openNoWait, 0)
	if err != nil {
		return nil, nil, err
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, cmp.Or(err, notRegular(path, fi))
	}
	return f, fi, nil
}

func notRegular(path string, fi fs.FileInfo) error {
	return fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, fi.Mode().Type())
}
