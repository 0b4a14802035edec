package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxFileBytes is the largest configuration file ReadFile reads. A file of
// 50,000 apps is about 10 MB; anything much larger is a mistake (a log or a
// disk image named by -config), and reading it whole would cost as much
// memory as it is long.
const MaxFileBytes = 64 << 20

// Errors of this package, wrapped with the details; test them with
// errors.Is. A file's own problems are *Error values instead.
var (
	// ErrNotRegular: ReadFile's path, symlinks followed, is not a
	// regular file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: ReadFile's file is longer than MaxFileBytes.
	ErrTooLarge = errors.New("file too large")
	// ErrDiscoveryFailed: CheckDiscovery found a rule whose query failed.
	ErrDiscoveryFailed = errors.New("a discovery query failed")
)

// ReadFile reads the configuration file at path. It follows symlinks
// (Kubernetes mounts a ConfigMap's files through two of them) and refuses
// what they lead to unless it is a regular file: opening a FIFO would wait
// for a writer for ever, and a device or a directory is never a
// configuration. It reads at most MaxFileBytes.
func ReadFile(path string) ([]byte, error) {
	// O_NONBLOCK makes opening a FIFO return at once instead of waiting
	// for a writer; it changes nothing for a regular file.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w but %s; availmon reads its configuration only from a regular file (or a symlink to one)",
			path, ErrNotRegular, kindOf(fi.Mode()))
	}
	if fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%s: %w: %d bytes, more than the %d availmon reads", path, ErrTooLarge, fi.Size(), MaxFileBytes)
	}
	// The file may grow while it is read: the limit holds whatever Stat said.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s: %w: more than the %d bytes availmon reads", path, ErrTooLarge, MaxFileBytes)
	}
	return data, nil
}

// kindOf names a file type that is not a regular file.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	default:
		return fmt.Sprintf("of type %s", m.Type())
	}
}
