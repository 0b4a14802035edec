package history

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/internal/statefile"
	"github.com/google/go-cmp/cmp"
)

// t0 is a whole minute, as the monitor's tests start at.
var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// emptyLedger is the ledger section of a monitor that recorded nothing.
var emptyLedger = ledger.New(ledger.Options{}).AppendBinary(nil)

// historyModel is what a Checks must show, kept plainly: a slice of
// the last size checks as the API shows them, and for each the slot of
// its error text, a slot being free when no check refers to it (counted
// afresh, where the history counts references as it goes).
type historyModel struct {
	size, maxTexts int
	checks         []Check // err empty: it is slots[slot[i]]
	slot           []int   // -1 for no error
	slots          []string
}

func (m *historyModel) add(e Check) {
	for len(m.checks) >= max(m.size, 1) {
		m.checks, m.slot = m.checks[1:], m.slot[1:]
	}
	ms := e.At / 1e6
	if e.At%1e6 < 0 {
		ms-- // floor
	}
	ms = min(max(ms, -1<<43), 1<<43-1)
	us := min(max(e.RT.Round(time.Microsecond)/time.Microsecond, 0), math.MaxUint32)
	m.checks = append(m.checks, Check{At: ms * 1e6, RT: us * time.Microsecond, Status: e.Status})
	m.slot = append(m.slot, m.slotFor(e.Err))
}

func (m *historyModel) used(s int) bool {
	for _, t := range m.slot {
		if t == s {
			return true
		}
	}
	return false
}

// slotFor is the rule of error texts: a text already shown keeps its slot,
// a new one takes the first free slot, or a new slot while there are fewer
// than maxTexts, or else shares the last.
func (m *historyModel) slotFor(text string) int {
	if text == "" {
		return -1
	}
	if s := m.firstSlot(func(s int) bool { return m.used(s) && m.slots[s] == text }); s >= 0 {
		return s
	}
	if s := m.firstSlot(func(s int) bool { return !m.used(s) }); s >= 0 {
		m.slots[s] = text
		return s
	}
	if len(m.slots) < m.maxTexts {
		m.slots = append(m.slots, text)
	}
	return len(m.slots) - 1
}

// firstSlot is the first slot that ok accepts, or -1.
func (m *historyModel) firstSlot(ok func(s int) bool) int {
	for s := range m.slots {
		if ok(s) {
			return s
		}
	}
	return -1
}

func (m *historyModel) restore(es []Check) {
	m.checks, m.slot, m.slots = nil, nil, nil
	for _, e := range es[max(0, len(es)-m.size):] {
		m.add(e)
	}
}

func (m *historyModel) list() []Check {
	out := make([]Check, len(m.checks))
	for i, c := range m.checks {
		if s := m.slot[i]; s >= 0 {
			c.Err = m.slots[s]
		}
		out[i] = c
	}
	return out
}

// historyGen makes checks as a monitor and its tests give them: mostly at
// a steady interval, some jittered, some going back, some jumping by
// years or to the ends of int64, with error texts that repeat and churn.
type historyGen struct {
	at    int64
	texts int // the texts in use are those numbered texts-8 to texts
}

func (g *historyGen) next(r func(n int) int) Check {
	const s = int64(time.Second)
	switch k := r(20); {
	case k < 12: // steady
		g.at += 30 * s
	case k < 15: // jittered
		g.at += 30*s + int64(r(400)-200)*int64(time.Millisecond) + int64(r(1e6))
	case k < 17: // back
		g.at -= int64(r(1000)) * s
	case k == 17: // years either way
		g.at += int64(r(200)-100) * 365 * 24 * 3600 * s
	default: // the ends, and anywhere
		g.at = [...]int64{math.MaxInt64, math.MinInt64, int64(r(1 << 30)), -int64(r(1<<30)) * s}[r(4)]
	}
	e := Check{At: g.at, Status: Status(r(3))}
	switch k := r(10); {
	case k < 6:
		e.RT = time.Duration(20_000+r(60_000))*time.Microsecond + time.Duration(r(1000))
	case k < 8:
		e.RT = time.Duration(r(1 << 20))
	default:
		e.RT = [...]time.Duration{-time.Second, 0, 500, math.MaxInt64, math.MaxUint32*time.Microsecond + 499, 3 * time.Hour}[r(6)]
	}
	if r(3) > 0 {
		if r(4) == 0 {
			g.texts++ // churn
		}
		e.Err = fmt.Sprintf("dial tcp 10.0.0.1:%d: refused", g.texts-r(8))
	}
	return e
}

// runHistoryModel drives a history and the model with the same checks,
// taking its choices from r, and compares them after every step.
func runHistoryModel(t *testing.T, size, maxTexts, steps int, r func(n int) int) {
	t.Helper()
	var h Checks
	m := historyModel{size: size, maxTexts: maxTexts}
	g := historyGen{at: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC).UnixNano()}
	for step := range steps {
		if r(50) == 0 { // a restore from a saved state, some checks more or fewer
			es := m.list()
			es = es[r(len(es)+1):]
			for range r(3) {
				es = append(es, g.next(r))
			}
			h.mu.Lock()
			h.reset(es, size, maxTexts, nil, nil)
			h.mu.Unlock()
			m.restore(es)
		} else {
			e := g.next(r)
			h.mu.Lock()
			h.push(e, size, maxTexts, nil, nil)
			h.mu.Unlock()
			m.add(e)
		}
		if want, got := m.list(), h.List(nil); !slices.Equal(want, got) { // cmp.Diff only to report: it is slow
			t.Fatalf("size %d, %d texts: after step %d (-want +got):\n%s", size, maxTexts, step, cmp.Diff(want, got))
		}
		checkHistoryRefs(t, &h)
		if step%16 == 0 {
			checkHistoryEncoding(t, &h)
		}
	}
}

// checkHistoryRefs checks that every error text is counted by the checks
// that show it, and that a text no check shows is let go.
func checkHistoryRefs(t *testing.T, h *Checks) {
	t.Helper()
	refs := make([]int, len(h.texts()))
	r := h.reader()
	for range h.n {
		if _, _, _, n := r.next(); n != 0 {
			refs[n-1]++
		}
	}
	for i, e := range h.texts() {
		if e.refs != refs[i] || e.refs == 0 && e.text != "" {
			t.Fatalf("error slot %d: %d references, %d checks refer to it, text %q", i, e.refs, refs[i], e.text)
		}
	}
	if len(r.b) != 0 {
		t.Fatalf("%d bytes past the last check", len(r.b))
	}
}

// checkHistoryEncoding checks that a save walks the live history to the
// bytes it gives for a copy of it.
func checkHistoryEncoding(t *testing.T, h *Checks) {
	t.Helper()
	live := statefile.NewEncoder(nil)
	live.Header(t0, nil)
	live.Minutes(0)
	live.BeginDay(0)
	live.Locations(0)
	live.Apps(1)
	live.App("a", "l")
	h.Encode(live, &statefile.Last{}, nil)
	live.BeginDay(0)
	live.Ledger(func(b []byte) []byte { return append(b, emptyLedger...) })
	live.Replay(nil)
	live.Maintenance(&statefile.Maintenance{})
	var checks []statefile.Check
	for _, c := range h.List(nil) {
		checks = append(checks, statefile.Check{At: c.At, RT: c.RT, Status: FileStatus(c.Status), Err: c.Err})
	}
	copied := statefile.Encode(&statefile.State{SavedAt: t0, Apps: []statefile.App{{Name: "a", Location: "l", Checks: checks}}})
	if !bytes.Equal(live.Bytes(), copied) {
		t.Fatalf("live encoding %x, of a copy %x", live.Bytes(), copied)
	}
	mark := h.Mark()
	marked := encodeApp(func(e *statefile.Encoder) { h.EncodeMarked(e, &statefile.Last{}, mark, nil) })
	if whole := encodeApp(func(e *statefile.Encoder) { h.Encode(e, &statefile.Last{}, nil) }); !bytes.Equal(marked, whole) {
		t.Fatalf("encoded at a mark just taken %x, whole %x", marked, whole)
	}
}

// The history shows what a plain slice of its last checks does, with
// times and response times rounded and clamped as the API shows them,
// through steady, jittered, backward and huge steps of time, restores,
// and error texts that repeat and churn, sharing slots past a small bound.
func TestHistoryMatchesModel(t *testing.T) {
	for _, size := range []int{1, 2, 3, 100} {
		for _, texts := range []int{maxErrTexts, 3, 1} {
			t.Run(fmt.Sprintf("size %d texts %d", size, texts), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(size), uint64(texts)))
				runHistoryModel(t, size, texts, 3000, rng.IntN)
			})
		}
	}
}

// The same comparison, from fuzz bytes.
func FuzzHistoryModel(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Add([]byte{0, 0, 0, 255, 255, 7, 7, 7, 7, 3, 3, 3})
	f.Add([]byte{4, 1, 18, 0, 19, 3, 17, 99, 5, 5, 5, 5, 5, 5, 5, 5, 5, 200, 19, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		size := [...]int{1, 2, 3, 5, 100}[int(data[0])%5]
		texts := [...]int{maxErrTexts, 2, 1}[int(data[1])%3]
		data = data[2:min(len(data), 2048)] // a few hundred steps; more finds nothing new
		runHistoryModel(t, size, texts, len(data)/2+1, choices(data))
	})
}

// Times before 1970 (a test clock), times past 2248, and response times
// past what 32 bits of microseconds hold come back as the nearest value
// kept.
func TestAppHistoryEdges(t *testing.T) {
	var h Checks
	old := time.Date(1960, 1, 1, 0, 0, 0, 5e6, time.UTC).UnixNano()
	h.Add(Check{At: old, RT: 3 * time.Hour, Status: Down}, 4, nil)
	h.Add(Check{At: old, RT: -time.Second, Status: Unavailable, Err: "x"}, 4, nil)
	h.Add(Check{At: math.MaxInt64, RT: math.MaxInt64, Status: Up}, 4, nil)
	h.Add(Check{At: math.MinInt64, RT: 1499, Status: Up}, 4, nil)
	got := h.List(nil)
	want := []Check{
		{At: old, RT: 4294967295 * time.Microsecond, Status: Down},
		{At: old, RT: 0, Status: Unavailable, Err: "x"},
		{At: statefile.MaxCheckMillis * int64(time.Millisecond), RT: math.MaxUint32 * time.Microsecond, Status: Up}, // year 2248
		{At: statefile.MinCheckMillis * int64(time.Millisecond), RT: time.Microsecond, Status: Up},                  // year 1691
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A full history adds a check without allocating, and keeps its buffer
// about the size of its checks: a sixteenth more, rounded up to the
// allocator's size class.
func TestHistoryBufferSize(t *testing.T) {
	for _, distinct := range []bool{false, true} {
		var h Checks
		for _, e := range benchChecks(1000, distinct) {
			h.Add(e, 100, nil)
			if h.n == 100 {
				if live := len(h.buf) - int(h.head); cap(h.buf) > 2*(live+maxCheckBytes) {
					t.Fatalf("distinct errors %v: %d bytes of checks in a buffer of %d", distinct, live, cap(h.buf))
				}
			}
		}
		if cap(h.texts()) > 112 {
			t.Errorf("distinct errors %v: %d slots for 100 checks' texts", distinct, cap(h.texts()))
		}
	}
}

// encodeApp is the encoding of one app whose checks encode writes.
func encodeApp(encode func(e *statefile.Encoder)) []byte {
	e := statefile.NewEncoder(nil)
	e.Header(t0, nil)
	e.Minutes(0)
	e.BeginDay(0)
	e.Locations(0)
	e.Apps(1)
	e.App("a", "l")
	encode(e)
	e.BeginDay(0)
	return e.Bytes()
}

// A history encoded at a mark holds the checks it held then, at their
// times then, less those dropped since: whatever was added, re-dated or
// restored after the mark; with its response times inline or shared with
// another app's checks alike.
func TestEncodeMarked(t *testing.T) {
	const size = 4
	at := func(i int) Check {
		c := Check{At: t0.Add(time.Duration(i) * time.Minute).UnixNano(), RT: time.Duration(i+1) * time.Millisecond, Status: Status(i % 3)}
		if c.Status == Unavailable {
			c.Err = fmt.Sprintf("timeout %d", i%2)
		}
		return c
	}
	type adder func(h *Checks, e Check)
	tests := []struct {
		name  string
		since func(h *Checks, add adder, rts *SharedRTs)
		keep  int // of the size checks held at the mark, the newest kept
	}{
		{"nothing since", func(*Checks, adder, *SharedRTs) {}, size},
		{"one added", func(h *Checks, add adder, _ *SharedRTs) { add(h, at(10)) }, size - 1},
		{"three added", func(h *Checks, add adder, _ *SharedRTs) {
			for i := range 3 {
				add(h, at(10+i))
			}
		}, size - 3},
		{"all dropped", func(h *Checks, add adder, _ *SharedRTs) {
			for i := range size + 2 {
				add(h, at(10+i))
			}
		}, 0},
		{"re-dated and added", func(h *Checks, add adder, _ *SharedRTs) {
			h.Redate(-2 * time.Hour)
			add(h, at(10))
			h.Redate(time.Hour)
		}, size - 1},
		{"restored", func(h *Checks, _ adder, rts *SharedRTs) {
			h.Restore([]Check{at(20), at(21)}, size, rts, func(int) bool { return true })
		}, 0},
	}
	for _, shared := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s shared %v", tt.name, shared), func(t *testing.T) {
				var rts *SharedRTs
				add := func(h *Checks, e Check) { h.Add(e, size, nil) }
				if shared {
					rts = new(SharedRTs)
					add = func(h *Checks, e Check) { h.AddShared(e, size, rts) }
				}
				var h, other Checks
				for i := range size + 3 { // wrapped, with error texts that left
					add(&h, at(i))
					add(&other, at(i))
				}
				held := h.List(rts)
				mark := h.Mark()
				tt.since(&h, add, rts)
				var want Checks
				want.Restore(held[len(held)-tt.keep:], size, nil, nil)
				last := statefile.Last{Checked: true, Status: statefile.Unavailable, At: 1, Err: "timeout 1"}
				got := encodeApp(func(e *statefile.Encoder) { h.EncodeMarked(e, &last, mark, rts) })
				if w := encodeApp(func(e *statefile.Encoder) { want.Encode(e, &last, nil) }); !bytes.Equal(got, w) {
					t.Errorf("encoded at the mark %x, want %x", got, w)
				}
			})
		}
	}
}

// choices makes a fuzz input a source of choices: each takes a varint of
// data, modulo n, and 0 once data runs out.
func choices(data []byte) func(n int) int {
	return func(n int) int {
		v, k := binary.Uvarint(data)
		if k <= 0 {
			data = data[len(data):]
			return 0
		}
		data = data[k:]
		return int(v % uint64(n))
	}
}
