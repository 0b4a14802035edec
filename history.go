package availmon

import (
	"math"
	"sync"
	"time"
)

// checkEntry is one check in an app's recent history, as appHistory takes
// and gives it.
type checkEntry struct {
	at     int64 // unix nanoseconds; kept to the millisecond
	rt     time.Duration
	status Status
	err    string
}

// appHistory is a ring of an app's most recent checks. There are
// HistorySize entries per app, so thousands of apps make millions of them:
// each is kept in 12 bytes (a checkEntry is 56), with the error texts held
// once per app and referred to by number. What it drops is what the API
// never shows: the time below the millisecond and the response time below
// the microsecond.
type appHistory struct {
	mu      sync.Mutex
	entries []packedEntry // a ring of exactly the history size (historyslab.go)
	next    int           // where the next entry goes once the ring is full
	errs    []errText     // the distinct error texts of entries
}

// packedEntry is a checkEntry in 12 bytes. The time in unix milliseconds
// and the status code make one 46-bit signed number, at<<2|status, split
// over lo and hi: it spans 278 years either side of 1970, and a time past
// that (which UnixNano cannot even give for long) is kept as the nearest
// one it holds.
type packedEntry struct {
	lo       uint32 // the low 32 bits of at<<2|status
	hi       int16  // the bits above them, sign included
	err      uint16 // 1 + index in errs; 0 for no error
	rtMicros uint32 // saturates at about 71 minutes
}

// maxPackedMillis bounds the unix milliseconds a packedEntry holds.
const maxPackedMillis = 1<<43 - 1

// errText is an error text with the number of entries that show it.
type errText struct {
	text string
	refs int
}

// maxErrTexts bounds an app's distinct error texts to what packedEntry.err
// can number; past it, new texts share the last slot.
const maxErrTexts = math.MaxUint16

var statusCodes = [...]Status{StatusUp, StatusDown, StatusUnavailable}

func packStatus(s Status) int64 {
	switch s {
	case StatusUp:
		return 0
	case StatusDown:
		return 1
	}
	return 2
}

func (h *appHistory) add(e checkEntry, size int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.entries == nil {
		h.entries = make([]packedEntry, 0, size)
	}
	if len(h.entries) < size {
		h.entries = append(h.entries, h.pack(e))
		return
	}
	h.release(h.entries[h.next].err)
	h.entries[h.next] = h.pack(e)
	h.next = (h.next + 1) % size
}

func (h *appHistory) pack(e checkEntry) packedEntry {
	v := checkMillis(e.at)<<2 | packStatus(e.status)
	return packedEntry{
		lo:       uint32(v),
		hi:       int16(v >> 32),
		rtMicros: checkMicros(e.rt), // rounded, as the API shows it
		err:      h.intern(e.err),
	}
}

// intern returns the number of text in errs, adding it if new.
func (h *appHistory) intern(text string) uint16 {
	if text == "" {
		return 0
	}
	free := -1
	for i := range h.errs {
		switch {
		case h.errs[i].text == text:
			h.errs[i].refs++
			return uint16(i + 1)
		case h.errs[i].refs == 0 && free < 0:
			free = i
		}
	}
	switch {
	case free >= 0:
	case len(h.errs) < maxErrTexts:
		free = len(h.errs)
		h.errs = append(h.errs, errText{})
	default:
		// Every slot is in use: share the last one rather than grow.
		free = len(h.errs) - 1
		h.errs[free].refs++
		return uint16(free + 1)
	}
	h.errs[free] = errText{text: text, refs: 1}
	return uint16(free + 1)
}

// release drops one reference to error number n.
func (h *appHistory) release(n uint16) {
	if n == 0 {
		return
	}
	e := &h.errs[n-1]
	if e.refs--; e.refs == 0 {
		e.text = "" // let the text go
	}
}

func (h *appHistory) unpack(p packedEntry) checkEntry {
	v := int64(p.hi)<<32 | int64(p.lo)
	e := checkEntry{
		at:     (v >> 2) * int64(time.Millisecond),
		rt:     time.Duration(p.rtMicros) * time.Microsecond,
		status: statusCodes[v&3],
	}
	if p.err != 0 {
		e.err = h.errs[p.err-1].text
	}
	return e
}

// list returns the entries, oldest first.
func (h *appHistory) list() []checkEntry {
	h.mu.Lock()
	n := len(h.entries)
	h.mu.Unlock()
	return h.appendTo(make([]checkEntry, 0, n))
}

// appendTo appends the entries to dst, oldest first.
func (h *appHistory) appendTo(dst []checkEntry) []checkEntry {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range h.entries[h.next:] {
		dst = append(dst, h.unpack(p))
	}
	for _, p := range h.entries[:h.next] {
		dst = append(dst, h.unpack(p))
	}
	return dst
}

// restore makes es (oldest first) the history, keeping the last size of
// them.
func (h *appHistory) restore(es []checkEntry, size int) {
	es = es[max(0, len(es)-size):]
	h.mu.Lock()
	if cap(h.entries) != size {
		h.entries = make([]packedEntry, 0, size)
	}
	h.entries, h.next, h.errs = h.entries[:0], 0, nil
	for _, e := range es {
		h.entries = append(h.entries, h.pack(e))
	}
	h.mu.Unlock()
}
