// Package filestore is availmon's built-in Store: the monitor's state in one
// file of a directory, written atomically and read without trusting it.
//
//	st, err := filestore.New(filestore.Options{Dir: "data", Logger: logger})
//	if err != nil { ... }
//	m, err := availmon.New(availmon.Options{..., Store: st})
//
// The file, availmon.state, is a header followed by the monitor's data:
//
//	magic    8 bytes  "AVMSTATE"
//	version  4 bytes  big-endian, 1
//	length   8 bytes  big-endian, of the data
//	checksum 4 bytes  big-endian CRC-32C (Castagnoli) of the data
//	data     length bytes
//
// Save writes a temporary file in the same directory, syncs it, renames it
// over availmon.state and syncs the directory, so that after a crash the
// file is the previous state or the new one, whole. Load checks every field
// of the header against the file; a file that is empty, truncated, damaged,
// of another version, or refused by the monitor is renamed aside with a
// timestamp (availmon.state.bad-20060102T150405.000Z), logged at warn, and the
// monitor starts afresh. Anything there but a regular file (a FIFO, a
// directory) is set aside the same way, and never opened in a way that
// could wait.
//
// Each save holds an exclusive lock (flock) on its temporary file until it
// ends. New removes the temporary files (availmon.state.tmp-*) that saves
// cut short by a crash or a SIGKILL left, those whose lock nobody holds: a
// file another live process is writing is left alone.
//
// One directory serves one monitor: two processes saving into the same
// directory overwrite each other's state.
package filestore
