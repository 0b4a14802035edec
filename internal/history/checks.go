package history

import (
	"encoding/binary"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/availmon/availmon/internal/statefile"
)

// Status is a check's outcome.
type Status uint8

// The outcomes, numbered as a history packs them.
const (
	Up Status = iota
	Down
	Unavailable
)

// Check is one check in an app's recent history, as Checks takes and
// gives it.
type Check struct {
	At     int64 // unix nanoseconds; kept to the millisecond
	RT     time.Duration
	Status Status
	Err    string
}

// Checks is an app's most recent checks, at most the history size of
// them, oldest first. There are HistorySize checks per app, so thousands of
// apps make millions of them: they are kept as a stream of varints, 2 to 4
// bytes a check (fixed 12-byte entries would make the histories the largest
// structure of the heap), with the error texts held once per app and
// referred to by number, and the response times many apps share held once
// in a SharedRTs. What it drops is what the API never shows: the time
// below the millisecond and the response time below the microsecond.
//
// Each check in buf[head:] is
//
//	varint   its time in unix ms, less the time of the check before it,
//	         less the delta before that (0 at a steady interval: 1 byte)
//	uvarint  rt<<3 | hasErr<<2 | status, where rt is either its response
//	         time in microseconds, saturated to 32 bits, times 2 (3 bytes
//	         from 1 to 131 ms), or 2i+1 for entry i of its time in the
//	         shared table (1 byte for the first 8 entries)
//	uvarint  if hasErr: 1 + the index of its error text in errs
//
// so that a check with no error takes 2 bytes when its response time is
// shared, and 4 most often when it is not.
//
// The methods that read or drop checks take the history's SharedRTs, the
// same for all of its life (nil when it has never been given one).
//
// The oldest check's time bytes are stale once the check before it has
// been dropped: its time and delta are in first and firstDelta instead, so
// that dropping it only moves head and updates them from the next one.
//
// The pointers come first: the collector scans a header only up to its
// last pointer, 40 of its 96 bytes, and there is one an app.
type Checks struct {
	mu  sync.Mutex
	buf []byte
	// errs holds the distinct error texts of checks, behind a pointer:
	// most apps never fail, and the header is one per app (96 bytes, an
	// allocator size class, where a slice here would make it 112).
	errs              *errTable
	head, n           int32 // where the oldest check starts; the number of checks
	first, firstDelta int64 // the oldest check's time in unix ms, and its delta
	last, lastDelta   int64 // the newest one's, which the next is encoded against
	// seq counts the checks ever pushed and moved sums the steps Redate
	// moved them by: a Mark is the two, so that EncodeMarked tells the
	// checks held at the mark from those pushed since, and undoes a move
	// made since.
	seq, moved int64
}

// errTable is the distinct error texts of an app's checks.
type errTable struct{ list []errText }

// texts is the table of error texts, nil when no check has failed.
func (h *Checks) texts() []errText {
	if h.errs == nil {
		return nil
	}
	return h.errs.list
}

// errText is an error text with the number of checks that show it.
type errText struct {
	text string
	refs int
}

// maxErrTexts bounds an app's distinct error texts to what an error number
// can be (uint16); past it, new texts share the last slot.
const maxErrTexts = math.MaxUint16

// maxCheckBytes bounds the encoding of one check.
const maxCheckBytes = 3 * binary.MaxVarintLen64

// maxChecks bounds the history size, so that the checks' count and byte
// offsets fit the header's int32s: 67 million checks, a few hundred
// megabytes an app, far past any history a monitor keeps.
const maxChecks = math.MaxInt32 / (maxCheckBytes * 17 / 16)

func packStatus(s Status) uint64 { return uint64(min(s, Unavailable)) }

// Add appends e, dropping the oldest checks past size. Its response time
// is its own: it is kept inline.
func (h *Checks) Add(e Check, size int, t *SharedRTs) {
	h.mu.Lock()
	h.push(e, size, maxErrTexts, t, nil)
	h.mu.Unlock()
}

// AddShared is Add of a check whose response time other apps' checks of
// its time share: it is kept in t, unless t is full.
func (h *Checks) AddShared(e Check, size int, t *SharedRTs) {
	h.mu.Lock()
	h.push(e, size, maxErrTexts, t, t)
	h.mu.Unlock()
}

// push is add with the bound on distinct error texts as a parameter, so
// that tests can reach it, and the table to share the response time in
// (nil: inline).
func (h *Checks) push(e Check, size, maxTexts int, t, share *SharedRTs) {
	size = min(max(size, 1), maxChecks)
	for int(h.n) >= size {
		h.dropOldest(t)
	}
	// Release before interning, so that a full table reuses the slot of
	// the dropped check.
	errNum := h.intern(e.Err, maxTexts, size)
	ms := statefile.CheckMillis(e.At)
	var dod int64
	if h.n == 0 {
		h.first, h.firstDelta, h.last, h.lastDelta = ms, 0, ms, 0
	} else {
		// Times are within ±2⁴³, so neither difference overflows.
		delta := ms - h.last
		dod = delta - h.lastDelta
		h.last, h.lastDelta = ms, delta
	}
	var tmp [maxCheckBytes]byte
	c := binary.AppendVarint(tmp[:0], dod)
	micros := statefile.CheckMicros(e.RT) // rounded, as the API shows it
	rt := uint64(micros) << 1
	if share != nil {
		if i, ok := share.ref(key(ms, h.moved), micros); ok {
			rt = uint64(i)<<1 | 1
		}
	}
	word := rt<<3 | packStatus(e.Status)
	if errNum != 0 {
		word |= 4
	}
	c = binary.AppendUvarint(c, word)
	if errNum != 0 {
		c = binary.AppendUvarint(c, uint64(errNum))
	}
	h.room(len(c), size)
	h.buf = append(h.buf, c...)
	h.n++
	h.seq++
}

// Redate moves every check's time by step, to the millisecond
// (followClock): the times are kept as differences from the oldest, so
// only the oldest and the newest change.
func (h *Checks) Redate(step time.Duration) {
	ms := int64(step.Round(time.Millisecond) / time.Millisecond)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.moved += ms
	if h.n > 0 {
		h.first += ms
		h.last += ms
	}
}

// dropOldest drops the oldest check; there is one.
func (h *Checks) dropOldest(t *SharedRTs) {
	r := h.reader()
	ms, rt, _, errNum := r.next()
	h.release(errNum)
	if i, ok := rt.shared(); ok {
		t.release(key(ms, h.moved), i)
	}
	if h.n--; h.n == 0 {
		h.buf, h.head = h.buf[:0], 0
		return
	}
	rest := len(r.b)
	r.next()
	h.head, h.first, h.firstDelta = int32(len(h.buf)-rest), r.ms, r.delta
}

// room makes buf hold need more bytes. When its end reaches its capacity,
// the checks are copied down over the dropped ones, or into a new buffer
// when that would leave less than a sixteenth of them free (copies would
// then be frequent) or more than half of the buffer unused. So copies cost
// at most 16 bytes per byte added, and no check allocates once the history
// is full and its checks keep their size. A history not yet full is sized
// for size checks like those it has: one allocation fills it.
func (h *Checks) room(need, size int) {
	if len(h.buf)+need <= cap(h.buf) {
		return
	}
	live := len(h.buf) - int(h.head)
	want := live + need
	if n := int(h.n); n+1 < size {
		perCheck := (want + n) / (n + 1) // rounded up
		want = max(want, perCheck*min(size, math.MaxInt32))
	}
	want += want / 16
	if c := cap(h.buf); c >= want && c <= 2*want {
		h.buf, h.head = h.buf[:copy(h.buf, h.buf[h.head:])], 0
		return
	}
	h.buf, h.head = withCap(h.buf[h.head:], want), 0
}

// withCap returns a copy of s with a capacity of at least c: all of the
// allocator's size class, which it would round c up to anyway.
func withCap[S ~[]E, E any](s S, c int) S {
	return append(slices.Grow(S(nil), c), s...)
}

// intern returns the number of text in errs, adding it if new: errs holds
// at most maxTexts texts (past it, new texts share the last slot) and
// grows no larger than size checks can refer to.
func (h *Checks) intern(text string, maxTexts, size int) uint16 {
	if text == "" {
		return 0
	}
	errs := h.texts()
	free := -1
	for i := range errs {
		switch {
		case errs[i].text == text:
			errs[i].refs++
			return uint16(i + 1)
		case errs[i].refs == 0 && free < 0:
			free = i
		}
	}
	switch n := len(errs); {
	case free >= 0:
	case n < maxTexts:
		if n == cap(errs) {
			errs = withCap(errs, n+max(1, min(n, size-n, maxTexts-n)))
		}
		free = n
		errs = append(errs, errText{})
		if h.errs == nil {
			h.errs = new(errTable)
		}
		h.errs.list = errs
	default:
		// Every slot is in use: share the last one rather than grow.
		free = n - 1
		errs[free].refs++
		return uint16(free + 1)
	}
	errs[free] = errText{text: text, refs: 1}
	return uint16(free + 1)
}

// release drops one reference to error number n.
func (h *Checks) release(n uint16) {
	if n == 0 {
		return
	}
	e := &h.errs.list[n-1]
	if e.refs--; e.refs == 0 {
		e.text = "" // let the text go
	}
}

// checkReader decodes a history's checks, oldest first.
type checkReader struct {
	b         []byte // the checks not read yet
	ms, delta int64  // the time of the check read last, and its delta
	oldest    bool   // the next check is the oldest: its time is ms
}

func (h *Checks) reader() checkReader {
	return checkReader{b: h.buf[h.head:], ms: h.first, delta: h.firstDelta, oldest: true}
}

// rtField is a check's response time as its history holds it: inline or
// a reference to the shared table.
type rtField uint64

// shared returns the index of the entry f refers to, if it does.
func (f rtField) shared() (int, bool) { return int(f >> 1), f&1 != 0 }

// micros is the response time f stands for in a check at ms; the caller
// holds t, if f refers to it.
func (h *Checks) micros(f rtField, ms int64, t *SharedRTs) uint32 {
	if i, ok := f.shared(); ok {
		return t.micros(key(ms, h.moved), i)
	}
	return uint32(f >> 1)
}

// next decodes the next check: its time in unix ms, its response time, its
// status and its error number (0 for none). The caller knows there is one:
// buf is only written by push, so it is not checked.
func (r *checkReader) next() (ms int64, rt rtField, s Status, errNum uint16) {
	dod, k := binary.Varint(r.b)
	if !r.oldest {
		r.delta += dod
		r.ms += r.delta
	}
	r.oldest = false
	word, j := binary.Uvarint(r.b[k:])
	r.b = r.b[k+j:]
	if word&4 != 0 {
		n, i := binary.Uvarint(r.b)
		r.b = r.b[i:]
		errNum = uint16(n)
	}
	return r.ms, rtField(word >> 3), Status(word & 3), errNum
}

// check returns a decoded check as a Check.
func (h *Checks) check(ms int64, rtMicros uint32, s Status, errNum uint16) Check {
	e := Check{
		At:     ms * int64(time.Millisecond),
		RT:     time.Duration(rtMicros) * time.Microsecond,
		Status: s,
	}
	if errNum != 0 {
		e.Err = h.errs.list[errNum-1].text
	}
	return e
}

// List returns the checks, oldest first.
func (h *Checks) List(t *SharedRTs) []Check {
	h.mu.Lock()
	n := h.n
	h.mu.Unlock()
	return h.AppendTo(make([]Check, 0, n), t)
}

// AppendTo appends the checks to dst, oldest first.
func (h *Checks) AppendTo(dst []Check, t *SharedRTs) []Check {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.appendTo(dst, t)
}

// appendTo is AppendTo under h.mu.
func (h *Checks) appendTo(dst []Check, t *SharedRTs) []Check {
	t.lock()
	defer t.unlock()
	r := h.reader()
	for range h.n {
		ms, rt, s, errNum := r.next()
		dst = append(dst, h.check(ms, h.micros(rt, ms, t), s, errNum))
	}
	return dst
}

// Unshare keeps the response times of h inline, letting go of its
// references to t: for a history its monitor no longer adds to (its app
// was removed), whose references would hold entries of t for good. What h
// reads back and encodes, at a mark taken before too, is unchanged.
func (h *Checks) Unshare(t *SharedRTs) {
	h.mu.Lock()
	defer h.mu.Unlock()
	es := h.appendTo(nil, t)
	seq, moved := h.seq, h.moved
	h.reset(es, len(es), maxErrTexts, t, nil)
	h.seq, h.moved = seq, moved
}

// Restore makes es (oldest first) the history, keeping the last size of
// them. The response time of es[i] is kept in t if shared(i) says other
// apps' checks of its time share it (shared nil: none do), else inline.
func (h *Checks) Restore(es []Check, size int, t *SharedRTs, shared func(i int) bool) {
	h.mu.Lock()
	h.reset(es, size, maxErrTexts, t, shared)
	h.mu.Unlock()
}

// reset is restore under h.mu, with the bound on distinct error texts as a
// parameter.
func (h *Checks) reset(es []Check, size, maxTexts int, t *SharedRTs, shared func(i int) bool) {
	for h.n > 0 {
		h.dropOldest(t) // lets go of its references
	}
	h.buf, h.head, h.n, h.errs = h.buf[:0], 0, 0, nil
	from := max(0, len(es)-size)
	for i, e := range es[from:] {
		var share *SharedRTs
		if shared != nil && shared(from+i) {
			share = t
		}
		h.push(e, size, maxTexts, t, share)
	}
}

// Encode writes the checks, oldest first, the app's last state and the
// table of their error texts to e, as statefile.Encode does a decoded app.
func (h *Checks) Encode(e *statefile.Encoder, last *statefile.Last, t *SharedRTs) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.encode(e, last, int(h.n), 0, t)
}

// Mark is where a history stood at a moment, for EncodeMarked.
type Mark struct{ seq, moved int64 }

// Mark returns where h stands: a few words, so that a save can mark every
// app's history while it holds the cycles off, and encode them after.
func (h *Checks) Mark() Mark {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Mark{seq: h.seq, moved: h.moved}
}

// EncodeMarked is Encode of the checks h held at mark, as they were then:
// those added since are left out, a Redate since is undone. The oldest
// checks held at mark that were dropped since (by Add, past the history
// size, or by Restore) are gone: the encoding holds the newest checks of the
// history at mark, all of them unless h changed meanwhile.
func (h *Checks) EncodeMarked(e *statefile.Encoder, last *statefile.Last, mark Mark, t *SharedRTs) {
	h.mu.Lock()
	defer h.mu.Unlock()
	since := min(max(h.seq-mark.seq, 0), int64(h.n))
	h.encode(e, last, int(h.n)-int(since), mark.moved-h.moved, t)
}

// encode writes the oldest n checks, their times moved by shift ms. It
// walks the checks once, straight from their encoded form: the error
// numbers of the history become the table's refs as they are first used,
// and the shared response times are written out as the checks' own.
func (h *Checks) encode(e *statefile.Encoder, last *statefile.Last, n int, shift int64, t *SharedRTs) {
	e.BeginChecks(n, len(h.texts()))
	t.lock()
	defer t.unlock()
	r := h.reader()
	for range n {
		ms, rt, s, errNum := r.next()
		var ref uint64
		if errNum != 0 {
			ref = e.Ref(int(errNum), h.errs.list[errNum-1].text)
		}
		e.Check(ms+shift, h.micros(rt, ms, t), FileStatus(s), ref)
	}
	e.Last(last)
	e.ErrTexts()
}

// FileStatus is s as a state file codes it.
func FileStatus(s Status) statefile.Status {
	switch s {
	case Up:
		return statefile.Up
	case Down:
		return statefile.Down
	}
	return statefile.Unavailable
}

// StatusOfFile is the status a state file's code s stands for.
func StatusOfFile(s statefile.Status) Status {
	switch s {
	case statefile.Up:
		return Up
	case statefile.Down:
		return Down
	}
	return Unavailable
}
