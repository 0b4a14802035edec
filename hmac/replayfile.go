package hmac

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/availmon/availmon/internal/atomicfile"
)

// The replay file (VerifierOptions.ReplayFile) keeps every signature a
// Verifier accepted, so that a restart after a crash still refuses them: the
// replay cache alone lives in memory, and a copy saved now and then misses
// what was accepted since. Verify appends a signature and syncs the file
// before it lets the request through, so a request is never acknowledged
// before the record that refuses it again is durable.
//
// Layout: the 8-byte magic and version, then fixed-size records of the
// signature (32 bytes), the end of its window (Unix seconds, big-endian
// int64) and a CRC-32C of both. Records are only appended; the file is
// rewritten (atomicfile.Write: temporary file, sync, rename, directory sync) with the live
// records alone when NewVerifier opens it and when it holds many expired
// ones. A crash during an append leaves at most a torn last record, whose
// request was never let through: the reader drops it.

const (
	replayMagic      = "AVMRPL\x00\x01" // name and version 1
	replayRecordSize = sha256.Size + 8 + 4
	// replayCompactMin is how many records the file holds at least before
	// an append rewrites it without the expired ones.
	replayCompactMin = 1024
)

var replayCRC = crc32.MakeTable(crc32.Castagnoli)

// replayFile is a Verifier's replay file. Appends and rewrites are
// serialized.
type replayFile struct {
	path    string
	log     *slog.Logger
	mu      sync.Mutex
	records int // records in the file, live or not
	// compactAt is the number of records at which an append looks whether
	// most of them have expired; never below minRecords.
	compactAt, minRecords int
}

// openReplayFile reads the file at path (none yet is an empty one) and
// rewrites it with the live records only, so that appends start on a record
// boundary. A damaged record is skipped with a warning; the rest still
// counts. Something there that is not a regular file (a FIFO, a directory)
// is moved aside with a warning and never opened in a way that could wait:
// a FIFO would hold up the start for ever. An error means the file cannot
// be read or written: a Verifier that cannot keep its signatures must not
// start, or a crash would open the replays it is there to prevent.
//
// The temporary files of rewrites that a crash cut short are removed
// first: a crash loop would otherwise fill the directory with them.
func openReplayFile(path string, now time.Time, log *slog.Logger) (*replayFile, []ReplayEntry, error) {
	atomicfile.RemoveAbandoned(path, log)
	data, err := readReplay(path)
	switch {
	case errors.Is(err, atomicfile.ErrNotRegular):
		setAside(path, now, err, log)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, nil, fmt.Errorf("hmac: replay file: %w", err)
	}
	es, bad := decodeReplay(data)
	if bad != nil {
		log.Warn("hmac replay file damaged: kept the records that are whole", "path", path, "err", bad, "kept", len(es))
	}
	live := es[:0]
	for _, e := range es {
		if now.Before(e.Expires) {
			live = append(live, e)
		}
	}
	f := &replayFile{path: path, log: log, minRecords: replayCompactMin}
	if err := f.rewrite(live); err != nil {
		return nil, nil, err
	}
	return f, live, nil
}

// readReplay is the one way the replay file is read.
func readReplay(path string) ([]byte, error) {
	f, _, err := atomicfile.OpenRegular(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// setAside renames what is at path, with the time, so that the rewrite
// does not replace what someone may want to look at. If it cannot, the
// rewrite replaces it or fails.
func setAside(path string, now time.Time, cause error, log *slog.Logger) {
	aside := path + ".bad-" + now.UTC().Format("20060102T150405.000Z")
	if err := os.Rename(path, aside); err != nil {
		log.Warn("hmac replay file unreadable, and it cannot be moved aside", "path", path, "err", cause, "rename_err", err)
		return
	}
	log.Warn("hmac replay file unreadable: moved aside, starting a new one", "path", path, "moved_to", aside, "err", cause)
}

// decodeReplay reads a replay file's bytes. It trusts nothing: a wrong
// magic gives no records, a record whose checksum fails is skipped, and a
// torn last record is dropped silently (its request was not let through).
// bad says what was damaged, if anything.
func decodeReplay(data []byte) (es []ReplayEntry, bad error) {
	if len(data) == 0 {
		return nil, nil
	}
	if !bytes.HasPrefix(data, []byte(replayMagic)) {
		return nil, errors.New("not a replay file of this version")
	}
	data = data[len(replayMagic):]
	skipped := 0
	for ; len(data) >= replayRecordSize; data = data[replayRecordSize:] {
		rec := data[:replayRecordSize]
		body := rec[:sha256.Size+8]
		if crc32.Checksum(body, replayCRC) != binary.BigEndian.Uint32(rec[sha256.Size+8:]) {
			skipped++
			continue
		}
		var e ReplayEntry
		copy(e.Signature[:], body)
		e.Expires = time.Unix(int64(binary.BigEndian.Uint64(body[sha256.Size:])), 0)
		es = append(es, e)
	}
	if skipped > 0 {
		bad = fmt.Errorf("%d records fail their checksum", skipped)
	}
	return es, bad
}

// appendRecord encodes e as one record onto b.
func appendRecord(b []byte, e ReplayEntry) []byte {
	start := len(b)
	b = append(b, e.Signature[:]...)
	b = binary.BigEndian.AppendUint64(b, uint64(e.Expires.Unix()))
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b[start:], replayCRC))
}

// add makes e durable: appended and synced. When the file holds many more
// records than live (the signatures still refused), it is first rewritten
// with those alone, so it stays about as large as the replay cache.
func (f *replayFile) add(e ReplayEntry, live func() []ReplayEntry) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.records >= f.compactAt {
		es := live()
		if f.records >= 2*len(es) {
			// es holds e already: the cache takes a signature before the
			// file does, so a rewrite never loses one being added.
			return f.rewrite(es)
		}
		f.compactAt = 2 * len(es)
	}
	// Not os.OpenFile: if something replaced the file by a FIFO, opening
	// it would wait for a reader for ever, holding every later write.
	fh, _, err := atomicfile.OpenRegular(f.path, os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrReplayFile, err)
	}
	_, werr := fh.Write(appendRecord(make([]byte, 0, replayRecordSize), e))
	serr := fh.Sync()
	cerr := fh.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrReplayFile, f.path, err)
	}
	f.records++
	return nil
}

// rewrite replaces the file with es, atomically and durably.
func (f *replayFile) rewrite(es []ReplayEntry) error {
	b := make([]byte, 0, len(replayMagic)+len(es)*replayRecordSize)
	b = append(b, replayMagic...)
	for _, e := range es {
		b = appendRecord(b, e)
	}
	if err := atomicfile.Write(f.path, b); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrReplayFile, f.path, err)
	}
	f.records = len(es)
	f.compactAt = max(f.minRecords, 2*len(es))
	return nil
}
