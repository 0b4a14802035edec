package history

import (
	"math"
	"math/bits"
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
	// times holds, per check time less the history's Redate moves (see
	// key), the response times of that time, at the index a check's
	// reference names; an entry no check refers to may be reused. It is a
	// hash table open by linear probing, its length a power of two, a slot
	// with a nil list empty. Looking a time up in it is a hash and, the
	// table at most half full, a probe or two: a save reads every check's
	// reference, and the apps a query answered, encoded one after another,
	// look up the same times.
	times []timeRTs
	used  int // slots with a list
	n     int // entries in use
	// spare keeps the lists of times no check refers to any more, for the
	// next times: a monitor's cycles then add checks without allocating.
	spare [][]sharedRT
}

// timeRTs is a slot of the table: a time's key and its response times.
type timeRTs struct {
	k  int64
	es []sharedRT
}

// minTimes is the table's first length: a few hundred queries' times.
const minTimes = 1 << 10

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

// slot is where k is in t.times, or where it would go, and whether it is
// there.
func (t *SharedRTs) slot(k int64) (int, bool) {
	if len(t.times) == 0 {
		return -1, false
	}
	mask := len(t.times) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		switch {
		case t.times[i].es == nil:
			return i, false
		case t.times[i].k == k:
			return i, true
		}
	}
}

// home is the slot k is looked up from. Fibonacci hashing: times a steady
// interval apart spread over the table.
func (t *SharedRTs) home(k int64) int {
	return int(uint64(k) * 0x9E3779B97F4A7C15 >> (64 - bits.TrailingZeros(uint(len(t.times)))))
}

// ref returns the index of a new reference to micros at k, and false when
// the table is full.
func (t *SharedRTs) ref(k int64, micros uint32) (int, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	at, found := t.slot(k)
	var es []sharedRT
	if found {
		es = t.times[at].es
	}
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
	if !found {
		if 2*(t.used+1) > len(t.times) {
			t.grow()
			at, _ = t.slot(k)
		}
		if len(t.spare) > 0 {
			es, t.spare = t.spare[len(t.spare)-1], t.spare[:len(t.spare)-1]
		} else {
			es = make([]sharedRT, 0, 1) // not nil: nil is an empty slot
		}
		t.times[at].k = k
		t.used++
	}
	if free < 0 {
		free = len(es)
		es = append(es, sharedRT{})
	}
	t.times[at].es = es
	es[free] = sharedRT{micros: micros, refs: 1}
	t.n++
	return free, true
}

// grow doubles the table, or makes its first.
func (t *SharedRTs) grow() {
	old := t.times
	t.times = make([]timeRTs, max(minTimes, 2*len(old)))
	for _, s := range old {
		if s.es != nil {
			i, _ := t.slot(s.k)
			t.times[i] = s
		}
	}
}

// release drops a reference to entry i of k.
func (t *SharedRTs) release(k int64, i int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	at, _ := t.slot(k)
	es := t.times[at].es
	if es[i].refs--; es[i].refs > 0 {
		return
	}
	t.n--
	for _, e := range es {
		if e.refs > 0 {
			return
		}
	}
	t.remove(at)
	if len(t.spare) < maxSpare {
		t.spare = append(t.spare, es[:0])
	}
}

// remove empties slot at, moving back the times after it that a probe
// from their home would no longer reach past the hole.
func (t *SharedRTs) remove(at int) {
	mask := len(t.times) - 1
	t.used--
	for j := at; ; {
		t.times[at] = timeRTs{}
		for {
			j = (j + 1) & mask
			if t.times[j].es == nil {
				return
			}
			// j stays when its home is cyclically in (at, j].
			h := t.home(t.times[j].k)
			if at <= j && (at < h && h <= j) || at > j && (at < h || h <= j) {
				continue
			}
			break
		}
		t.times[at] = t.times[j]
		at = j
	}
}

// micros is the response time of entry i of k; the caller holds t.mu.
func (t *SharedRTs) micros(k int64, i int) uint32 {
	at, _ := t.slot(k)
	return t.times[at].es[i].micros
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
