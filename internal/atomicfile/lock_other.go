//go:build !unix

package atomicfile

import (
	"errors"
	"os"
)

const openNoWait = 0

func lock(*os.File) error { return nil }

// tryLock never succeeds: without the lock of a live writer to test, no
// temporary file is known to be abandoned, and none is removed.
func tryLock(*os.File) (bool, error) {
	return false, errors.New("atomicfile: no file locks on this system")
}
