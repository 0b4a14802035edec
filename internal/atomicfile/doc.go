// Package atomicfile holds what availmon's files on disk (the state of
// package filestore, the replay file of package hmac) share: a write that
// a crash leaves whole or not at all, the removal of the temporary files
// such writes leave when they are cut short, and an open that never waits.
//
//	atomicfile.RemoveAbandoned(path, logger) // once, at start
//	f, fi, err := atomicfile.OpenRegular(path)
//	...
//	err = atomicfile.Write(path, header, data)
//
// Write creates path.tmp-<random> in path's directory, holds an exclusive
// lock (flock) on it while it writes and syncs it, renames it over path
// and syncs the directory. A process killed meanwhile leaves the
// temporary file; RemoveAbandoned removes those whose lock nobody holds,
// since the kernel releases a lock when its process dies, however it dies.
// A file another live process is writing keeps its lock and is left alone.
// On a system without file locks nothing is removed.
package atomicfile
