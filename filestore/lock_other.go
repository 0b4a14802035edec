//go:build !unix

package filestore

import (
	"errors"
	"os"
)

const openNoWait = 0

func lock(*os.File) error { return nil }

// tryLock never succeeds: without the lock of a live writer to test, no
// temporary file is known to be abandoned, and none is removed.
func tryLock(*os.File) (bool, error) {
	return false, errors.New("filestore: no file locks on this system")
}
