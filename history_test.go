package availmon

import (
	"fmt"
	"math"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// What the API shows of a check: the time to the millisecond, the response
// time to the microsecond.
func shown(e checkEntry) checkEntry {
	e.at = time.Unix(0, e.at).UnixMilli() * int64(time.Millisecond)
	e.rt = e.rt.Round(time.Microsecond)
	return e
}

// The ring keeps the last size checks, oldest first, with everything the
// API shows of them, whatever their errors: compared with a plain slice.
func FuzzAppHistory(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, uint8(5))
	f.Add([]byte{0, 0, 0, 255, 255, 7, 7, 7, 7, 3, 3, 3}, uint8(1))
	f.Fuzz(func(t *testing.T, ops []byte, size uint8) {
		n := int(size%20) + 1
		var h appHistory
		var want []checkEntry
		base := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC).UnixNano()
		for i, op := range ops {
			e := checkEntry{
				at:     base + int64(i)*int64(1234567891) + int64(op)*7919,
				rt:     time.Duration(op) * 1234567 * time.Nanosecond,
				status: statusCodes[int(op)%3],
			}
			if op%4 != 0 {
				e.err = fmt.Sprintf("error %d", op%7) // few distinct texts, repeated
			}
			if op%5 == 0 {
				e.at = -e.at // 1913: a test clock before 1970
			}
			h.add(e, n)
			want = append(want, shown(e))
			if len(want) > n {
				want = want[1:]
			}
			if diff := cmp.Diff(want, h.list(), cmp.AllowUnexported(checkEntry{})); diff != "" {
				t.Fatalf("after %d adds (size %d) (-want +got):\n%s", i+1, n, diff)
			}
		}
		if cap(h.entries) != 0 && cap(h.entries) != n {
			t.Errorf("ring capacity %d for size %d", cap(h.entries), n)
		}
		refs := 0
		for _, e := range h.errs {
			refs += e.refs
			if e.refs == 0 && e.text != "" {
				t.Errorf("unreferenced error text %q kept", e.text)
			}
		}
		withErr := 0
		for _, e := range h.entries {
			if e.err != 0 {
				withErr++
			}
		}
		if refs != withErr {
			t.Errorf("%d references to error texts for %d entries with an error", refs, withErr)
		}
		if len(h.errs) > 7 {
			t.Errorf("%d error slots for 7 distinct texts", len(h.errs))
		}
	})
}

// An entry is 12 bytes: 10,000 apps of 100 checks are 12 MB, not 48.
func TestPackedEntrySize(t *testing.T) {
	if s := unsafe.Sizeof(packedEntry{}); s != 12 {
		t.Errorf("packedEntry is %d bytes", s)
	}
}

// Times before 1970 (a test clock), times past 2248, and response times
// past what 32 bits of microseconds hold come back as the nearest value
// kept.
func TestAppHistoryEdges(t *testing.T) {
	var h appHistory
	old := time.Date(1960, 1, 1, 0, 0, 0, 5e6, time.UTC).UnixNano()
	h.add(checkEntry{at: old, rt: 3 * time.Hour, status: StatusDown}, 3)
	h.add(checkEntry{at: old, rt: -time.Second, status: StatusUnavailable, err: "x"}, 3)
	h.add(checkEntry{at: math.MaxInt64, status: StatusUp}, 3)
	got := h.list()
	want := []checkEntry{
		{at: old, rt: 4294967295 * time.Microsecond, status: StatusDown},
		{at: old, rt: 0, status: StatusUnavailable, err: "x"},
		{at: maxPackedMillis * int64(time.Millisecond), status: StatusUp}, // year 2248
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(checkEntry{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
