package availmon

import (
	"bytes"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/availmon/availmon/internal/jsontime"
)

// /api/status is polled like /health, but its answer (a dozen members,
// the storage's and the backfill's among them) went through
// encoding/json's reflection on every request, which held it under half
// of a static server's rate at 100,000 apps. What it says changes with the
// snapshot, the system status, a save or the backfill's progress: the
// encoded answer is kept with what it was made from, and made again when
// any of that differs.

// statusAnswer is an encoded /api/status answer and what it says.
type statusAnswer struct {
	key    statusKey
	body   []byte
	length []string // Content-Length's value
}

// statusKey is what an /api/status answer is made from, comparable: the
// storage's and backfill's members are copied with their pointers
// followed, so that equal keys mean equal answers. A member added to
// either that is a slice or map stops this compiling; one that is a
// pointer only makes the answer be made again more often.
type statusKey struct {
	snap     uint64 // the snapshot's seq: its pointer would keep it, and its whole record, alive while the answer is kept
	system   string
	storage  statusStorageKey
	backfill statusBackfillKey
}

type statusStorageKey struct {
	present bool
	v       storageJSON // LastSaveError cleared: hasErr and errText hold it
	hasErr  bool
	errText string
}

type statusBackfillKey struct {
	present  bool
	v        backfillStatusJSON // From and To cleared: from and to hold them
	from, to optionalTime
}

func newStatusKey(s *snapshot, system string, storage *storageJSON, backfill *backfillStatusJSON) statusKey {
	return statusKey{snap: s.seq, system: system, storage: newStatusStorageKey(storage), backfill: newStatusBackfillKey(backfill)}
}

func newStatusStorageKey(s *storageJSON) statusStorageKey {
	if s == nil {
		return statusStorageKey{}
	}
	k := statusStorageKey{present: true, v: *s}
	k.v.LastSaveError = nil
	if s.LastSaveError != nil {
		k.hasErr, k.errText = true, *s.LastSaveError
	}
	return k
}

func newStatusBackfillKey(b *backfillStatusJSON) statusBackfillKey {
	if b == nil {
		return statusBackfillKey{}
	}
	k := statusBackfillKey{present: true, v: *b}
	k.v.From, k.v.To = nil, nil
	k.from, k.to = newOptionalTime(b.From), newOptionalTime(b.To)
	return k
}

// optionalTime is a *jsontime.Time's value, comparable.
type optionalTime struct {
	present bool
	t       jsontime.Time
}

func newOptionalTime(t *jsontime.Time) optionalTime {
	if t == nil {
		return optionalTime{}
	}
	return optionalTime{true, *t}
}

// statusCache holds the last /api/status answer.
type statusCache struct{ last atomic.Pointer[statusAnswer] }

// write answers with the status that data says and key sums up, from the
// last answer when its key is equal.
func (c *statusCache) write(w http.ResponseWriter, key statusKey, data *statusJSON) {
	a := c.last.Load()
	if a == nil || a.key != key {
		var buf bytes.Buffer
		raw, _, err := envelope{Data: data}.encode(&buf)
		if err != nil || raw != nil {
			writeJSON(w, http.StatusOK, envelope{Data: data})
			return
		}
		a = &statusAnswer{key: key, body: buf.Bytes(), length: []string{strconv.Itoa(buf.Len())}}
		c.last.Store(a)
	}
	h := w.Header()
	h["Content-Type"] = jsonHeaders.contentType
	h["Content-Length"] = a.length
	h["Cache-Control"] = jsonHeaders.noStore
	h["X-Content-Type-Options"] = jsonHeaders.nosniff
	w.WriteHeader(http.StatusOK)
	w.Write(a.body) //nolint:errcheck // the client went away; nothing to do
}
