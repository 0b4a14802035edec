package filestore

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/availmon/availmon"
)

// FileName is the state file's name inside Options.Dir.
const FileName = "availmon.state"

// DefaultMaxBytes bounds the state file Load reads.
const DefaultMaxBytes = 1 << 30

// Options configures a Store. Only Dir is required.
type Options struct {
	// Dir is the directory of the state file; New creates it if needed.
	Dir string
	// MaxBytes bounds the file Load reads; a larger one is set aside.
	// Default DefaultMaxBytes.
	MaxBytes int64
	// Logger receives a warning when a file is set aside; nil discards.
	Logger *slog.Logger
	// Now tells the time of the set-aside file names; default time.Now.
	Now func() time.Time
}

// Store keeps a monitor's state in Dir/availmon.state. It is safe for
// concurrent use; saves are serialized.
type Store struct {
	dir      string
	maxBytes int64
	log      *slog.Logger
	now      func() time.Time
	saving   chan struct{} // a one-slot lock that a cancelled Save can leave
}

var _ availmon.Store = (*Store)(nil)

// New returns a Store for o.Dir, creating the directory if it does not
// exist, and removes the temporary files that saves cut short by a crash
// left there (see removeAbandoned).
func New(o Options) (*Store, error) {
	if o.Dir == "" {
		return nil, errors.New("filestore: no directory")
	}
	if o.MaxBytes < 0 {
		return nil, errors.New("filestore: negative MaxBytes")
	}
	if err := os.MkdirAll(o.Dir, 0o750); err != nil {
		return nil, fmt.Errorf("filestore: %w", err)
	}
	s := &Store{dir: o.Dir, maxBytes: o.MaxBytes, log: o.Logger, now: o.Now, saving: make(chan struct{}, 1)}
	if s.maxBytes == 0 {
		s.maxBytes = DefaultMaxBytes
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.removeAbandoned()
	return s, nil
}

// tempInfix follows FileName in the names of the temporary files of saves.
const tempInfix = ".tmp-"

// removeAbandoned removes the temporary files of saves that never reached
// their rename: a process killed while it saved leaves one, as large as
// the state, and a crash loop would fill the disk with them. Only regular
// files named as a save names them are candidates, and only those whose
// lock nobody holds are removed: a save holds its file's lock until it
// ends, and the kernel releases it when the saving process dies, so a
// file another live process is writing (a second Store on the directory,
// an old process still saving while a new one starts) is left alone.
func (s *Store) removeAbandoned() {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		s.log.Warn("cannot look for temporary files of earlier saves", "dir", s.dir, "err", err)
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), FileName+tempInfix) {
			continue
		}
		path := filepath.Join(s.dir, e.Name())
		switch err := removeUnlocked(path); {
		case errors.Is(err, errInUse):
			s.log.Info("left a temporary file that a save under way writes", "path", path)
		case err != nil:
			s.log.Warn("cannot remove the temporary file of an earlier save", "path", path, "err", err)
		default:
			s.log.Info("removed the temporary file of a save cut short", "path", path)
		}
	}
}

// errInUse says a temporary file's lock is held: a live save writes it.
var errInUse = errors.New("a save is writing it")

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
		return cmp.Or(err, errors.New("not a regular file"))
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

// Path is the state file's path.
func (s *Store) Path() string { return filepath.Join(s.dir, FileName) }

// The header: magic, version, length, checksum.
const (
	magic      = "AVMSTATE"
	version    = 1
	headerSize = len(magic) + 4 + 8 + 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errBadFile wraps every reason a file is set aside.
var errBadFile = errors.New("filestore: state file unreadable")

// Save writes data atomically: a temporary file is written and synced,
// renamed over the state file, and the directory synced.
func (s *Store) Save(ctx context.Context, data []byte) error {
	select {
	case s.saving <- struct{}{}:
		defer func() { <-s.saving }()
	case <-ctx.Done():
		return ctx.Err()
	}
	hdr := header(data)
	return writeAtomic(s.dir, FileName, hdr[:], data)
}

// header is the header that frames data. It is written before data rather
// than prepended to a copy of it: the state of 50,000 apps is tens of
// megabytes, and a copy per save would double what a save holds.
func header(data []byte) [headerSize]byte {
	var h [headerSize]byte
	copy(h[:], magic)
	binary.BigEndian.PutUint32(h[8:], version)
	binary.BigEndian.PutUint64(h[12:], uint64(len(data)))
	binary.BigEndian.PutUint32(h[20:], crc32.Checksum(data, castagnoli))
	return h
}

// writeAtomic is the one way the state file is written: the parts one
// after the other.
func writeAtomic(dir, name string, parts ...[]byte) (err error) {
	f, err := createTemp(dir, name)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	for _, b := range parts {
		if _, err := f.Write(b); err != nil {
			return fmt.Errorf("filestore: writing %s: %w", f.Name(), err)
		}
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("filestore: syncing %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("filestore: closing %s: %w", f.Name(), err)
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("filestore: %w", err)
	}
	return syncDir(dir)
}

// createTemp creates the temporary file of a save of dir/name, locked.
// The lock tells a Store starting meanwhile that the file is being written
// (removeAbandoned); a file system without locks still saves.
func createTemp(dir, name string) (*os.File, error) {
	f, err := os.CreateTemp(dir, name+tempInfix+"*")
	if err != nil {
		return nil, fmt.Errorf("filestore: %w", err)
	}
	_ = lock(f)
	return f, nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("filestore: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("filestore: syncing %s: %w", dir, err)
	}
	return nil
}

// Load reads the state file and hands its data to decode. No file: nil,
// decode not called. A file that fails any check, or that decode refuses,
// is set aside and reported in the error.
func (s *Store) Load(ctx context.Context, decode func([]byte) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := s.read()
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		if derr := decode(data); derr != nil {
			err = fmt.Errorf("%w: %w", errBadFile, derr)
		}
	}
	if err == nil {
		return nil
	}
	if !errors.Is(err, errBadFile) {
		return err // could not read it: leave it where it is
	}
	return s.setAside(err)
}

// read is the one way the state file is read. It trusts nothing in it.
func (s *Store) read() ([]byte, error) {
	// Opening a FIFO for reading waits for a writer, for ever, and no
	// context or signal ends the wait: look at what is there first, and
	// open without waiting in case it changed in between.
	fi, err := os.Stat(s.Path())
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: not a regular file (%s)", errBadFile, fi.Mode().Type())
	}
	f, err := os.OpenFile(s.Path(), os.O_RDONLY|openNoWait, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: not a regular file (%s)", errBadFile, fi.Mode().Type())
	}
	if fi.Size() > s.maxBytes+int64(headerSize) {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d allowed", errBadFile, fi.Size(), s.maxBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, s.maxBytes+int64(headerSize)+1))
	if err != nil {
		return nil, err
	}
	return unframe(b)
}

// unframe checks the header against b and returns the data it frames.
func unframe(b []byte) ([]byte, error) {
	switch {
	case len(b) == 0:
		return nil, fmt.Errorf("%w: empty", errBadFile)
	case len(b) < headerSize:
		return nil, fmt.Errorf("%w: %d bytes, shorter than the header", errBadFile, len(b))
	case string(b[:8]) != magic:
		return nil, fmt.Errorf("%w: not an availmon state file", errBadFile)
	}
	if v := binary.BigEndian.Uint32(b[8:]); v != version {
		return nil, fmt.Errorf("%w: format version %d, this availmon reads %d", errBadFile, v, version)
	}
	data := b[headerSize:]
	if n := binary.BigEndian.Uint64(b[12:]); n != uint64(len(data)) {
		return nil, fmt.Errorf("%w: header says %d bytes of data, the file has %d (truncated?)", errBadFile, n, len(data))
	}
	if sum := crc32.Checksum(data, castagnoli); sum != binary.BigEndian.Uint32(b[20:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", errBadFile)
	}
	return data, nil
}

// setAside renames the state file with a timestamp, so that the next Save
// does not overwrite what someone may want to look at.
func (s *Store) setAside(cause error) error {
	aside := s.Path() + ".bad-" + s.now().UTC().Format("20060102T150405.000Z")
	if err := os.Rename(s.Path(), aside); err != nil {
		s.log.Warn("state file unreadable, and it cannot be moved aside", "path", s.Path(), "err", cause, "rename_err", err)
		return fmt.Errorf("%w (not moved aside: %v)", cause, err)
	}
	s.log.Warn("state file unreadable: moved aside, starting without it", "path", s.Path(), "moved_to", aside, "err", cause)
	return fmt.Errorf("%w (moved to %s)", cause, aside)
}
