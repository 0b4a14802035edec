//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

// openNoWait makes an open return at once: opening a FIFO for reading
// otherwise waits for a writer.
const openNoWait = syscall.O_NONBLOCK

// lock takes f's exclusive lock. The kernel releases it when f is closed
// or its process ends, however it ends: a SIGKILL included.
func lock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
}

// tryLock takes f's exclusive lock if no other open file holds it, in this
// process or another, and reports whether it did.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
