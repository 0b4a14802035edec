package filestore

import (
	"bufio"
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
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/atomicfile"
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

var (
	_ availmon.Store       = (*Store)(nil)
	_ availmon.StreamSaver = (*Store)(nil)
)

// New returns a Store for o.Dir, creating the directory if it does not
// exist, and removes the temporary files that saves cut short by a crash
// left there (atomicfile.RemoveAbandoned): a process killed while it saved
// leaves one, as large as the state. A save holds its file's lock until it
// ends, so the file of a save under way in another live process (an old
// process still saving while a new one starts) is left alone.
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
	atomicfile.RemoveAbandoned(s.Path(), s.log)
	return s, nil
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
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.unlock()
	hdr := header(data)
	if err := atomicfile.Write(s.Path(), hdr[:], data); err != nil {
		return fmt.Errorf("filestore: %w", err)
	}
	return nil
}

// SaveFrom writes what src writes atomically, as Save writes its data, but
// as src writes it: the state is never held whole in memory. The header,
// whose length and checksum are known only at the end, is written last, in
// its place before the data; until the rename, the file is only a
// temporary one.
func (s *Store) SaveFrom(ctx context.Context, src io.WriterTo) error {
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.unlock()
	err := atomicfile.WriteFunc(s.Path(), func(f *os.File) error {
		if _, err := f.Seek(int64(headerSize), io.SeekStart); err != nil {
			return err
		}
		bw := bufio.NewWriterSize(f, saveBuffer)
		cw := &summingWriter{w: bw}
		if _, err := src.WriteTo(cw); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		hdr := headerOf(cw.n, cw.sum)
		_, err := f.WriteAt(hdr[:], 0)
		return err
	})
	if err != nil {
		return fmt.Errorf("filestore: %w", err)
	}
	return nil
}

// saveBuffer is the size of the writes SaveFrom makes.
const saveBuffer = 256 << 10

// summingWriter counts and checksums what it passes on, for the header.
type summingWriter struct {
	w   io.Writer
	n   uint64
	sum uint32
}

func (c *summingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += uint64(n)
	c.sum = crc32.Update(c.sum, castagnoli, p[:n])
	return n, err
}

// lock takes the store's one save at a time, or gives up when ctx ends.
func (s *Store) lock(ctx context.Context) error {
	select {
	case s.saving <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Store) unlock() { <-s.saving }

// header is the header that frames data. It is written before data rather
// than prepended to a copy of it: the state of 50,000 apps is tens of
// megabytes, and a copy per save would double what a save holds.
func header(data []byte) [headerSize]byte {
	return headerOf(uint64(len(data)), crc32.Checksum(data, castagnoli))
}

// headerOf is the header of n bytes of data whose checksum is sum.
func headerOf(n uint64, sum uint32) [headerSize]byte {
	var h [headerSize]byte
	copy(h[:], magic)
	binary.BigEndian.PutUint32(h[8:], version)
	binary.BigEndian.PutUint64(h[12:], n)
	binary.BigEndian.PutUint32(h[20:], sum)
	return h
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

// Read returns the data of the state file in dir, read as Load reads it,
// but changing nothing: no directory is made, no abandoned temporary file
// removed, no unreadable file set aside. A Store saving at the same time
// replaces the file by a rename, so what is read is one save, whole. No
// file is an error wrapping fs.ErrNotExist.
func Read(dir string) ([]byte, error) {
	s := &Store{dir: dir, maxBytes: DefaultMaxBytes}
	return s.read()
}

// read is the one way the state file is read. It trusts nothing in it.
func (s *Store) read() ([]byte, error) {
	f, fi, err := atomicfile.OpenRegular(s.Path(), os.O_RDONLY)
	if errors.Is(err, atomicfile.ErrNotRegular) {
		return nil, fmt.Errorf("%w: %w", errBadFile, err)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > s.maxBytes+int64(headerSize) {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d allowed", errBadFile, fi.Size(), s.maxBytes)
	}
	b, err := readSized(io.LimitReader(f, s.maxBytes+int64(headerSize)+1), fi.Size())
	if err != nil {
		return nil, err
	}
	return unframe(b)
}

// readSized reads r to its end into one buffer of size bytes, grown only
// if r holds more. io.ReadAll would grow its buffer step by step, leaving
// garbage several times the state's size at every start.
func readSized(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, size+1) // +1: the end is seen without growing
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the file grew as it was read
		}
	}
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
