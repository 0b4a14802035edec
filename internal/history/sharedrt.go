package history

import (
	"math"
	"sync"
)

// SharedRTs is a table of response times that many apps' checks share,
// for the histories of one monitor. A Prometheus source answers thousands
// of apps with one query, and each app's response time is that query's
// round trip: the same value, at the same check time, for all of them. A
// check that refers to the table takes about 2 bytes in its history, where
// its response time inline takes 3 or 4 (past 131 ms, as round trips of
// large queries are).
//
// An entry is the response time of the checks of one time that refer to it,
// and is held as long as one of them is: each history counts its
// references in and out, so nothing a history holds is ever dropped from
// the table. The table is bounded: past maxSharedRTs entries, or a time
// with more than maxRTsPerTime of them, checks keep their response time
// inline.
//
// A SharedRTs is safe for concurrent use. A history must be given the same
// table for all of its life (nil for none).
type SharedRTs struct {
	mu sync.Mutex
	// byKey holds, per check time less the history's Redate moves (see
	// key), the response times of that time, at the index a check's
	// reference names. An entry no check refers to may be reused.
	byKey map[int64][]sharedRT
	n     int // entries in use
	// spare keeps the lists of times no check refers to any more, for the
	// next times: a monitor's cycles then add checks without allocating.
	spare [][]sharedRT
	// gen counts the changes that move or drop a time's list, or give an
	// entry another response time: a memo entry of an older gen is stale.
	gen uint64
	// memo holds the lists of the times read last, so that reading a
	// reference (a save reads every check's) seldom looks its time up in
	// byKey: the apps a query answered have their checks at the same
	// times, and are encoded one after another. Made at the first read.
	memo *[memoSize]memoEntry
}

// memoEntry is a time's list as byKey held it at gen.
type memoEntry struct {
	k   int64
	gen uint64
	es  []sharedRT
}

// memoSize is the number of times the memo holds: 40 KB, many more times
// than the checks of a few hundred apps answered together have.
const (
	memoBits = 10
	memoSize = 1 << memoBits
)

type sharedRT struct {
	micros uint32
	refs   int32
}

const (
	// maxSharedRTs bounds the table: a few megabytes, far past what the
	// histories of 100,000 apps checked by a few hundred queries each
	// cycle hold.
	maxSharedRTs = 1 << 20
	// maxRTsPerTime bounds the index of a reference, so that the check
	// that holds it takes at most 2 bytes for it.
	maxRTsPerTime = 1 << 10
	// maxSpare bounds the lists kept for reuse.
	maxSpare = 64
)

// key is the table's key of a check at ms in a history moved by moved ms
// since it began: Redate moves a history's checks' times and its moved
// count alike, so a check's key stays what it was when it was added, and
// Redate needs no change to the table.
func key(ms, moved int64) int64 { return ms - moved }

// ref returns the index of a new reference to micros at k, and false when
// the table is full.
func (t *SharedRTs) ref(k int64, micros uint32) (int, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	es := t.byKey[k]
	free := -1
	for i := range es {
		switch {
		case es[i].refs > 0 && es[i].micros == micros && es[i].refs < math.MaxInt32:
			es[i].refs++
			return i, true
		case es[i].refs == 0 && free < 0:
			free = i
		}
	}
	if free < 0 && (len(es) >= maxRTsPerTime || t.n >= maxSharedRTs) {
		return 0, false
	}
	if t.byKey == nil {
		t.byKey = make(map[int64][]sharedRT)
	}
	if es == nil && len(t.spare) > 0 {
		es, t.spare = t.spare[len(t.spare)-1], t.spare[:len(t.spare)-1]
	}
	if free < 0 {
		free = len(es)
		es = append(es, sharedRT{})
		t.byKey[k] = es
	}
	t.gen++
	es[free] = sharedRT{micros: micros, refs: 1}
	t.n++
	return free, true
}

// release drops a reference to entry i of k.
func (t *SharedRTs) release(k int64, i int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	es := t.byKey[k]
	if es[i].refs--; es[i].refs > 0 {
		return
	}
	t.n--
	for _, e := range es {
		if e.refs > 0 {
			return
		}
	}
	t.gen++
	delete(t.byKey, k)
	if len(t.spare) < maxSpare {
		t.spare = append(t.spare, es[:0])
	}
}

// micros is the response time of entry i of k; the caller holds t.mu.
func (t *SharedRTs) micros(k int64, i int) uint32 {
	if t.memo == nil {
		t.memo = new([memoSize]memoEntry)
	}
	// Fibonacci hashing: times a steady interval apart spread over it.
	m := &t.memo[uint64(k)*0x9E3779B97F4A7C15>>(64-memoBits)]
	if m.k != k || m.gen != t.gen || m.es == nil {
		*m = memoEntry{k: k, gen: t.gen, es: t.byKey[k]}
	}
	return m.es[i].micros
}

// lock and unlock hold the table while a history reads its references;
// a nil table has none to read.
func (t *SharedRTs) lock() {
	if t != nil {
		t.mu.Lock()
	}
}

func (t *SharedRTs) unlock() {
	if t != nil {
		t.mu.Unlock()
	}
}

// Len is the number of entries the histories refer to.
func (t *SharedRTs) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}
