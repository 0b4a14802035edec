package availmon

import (
	"bytes"
	"sync/atomic"
	"testing"
)

// TestLargeEnvelopeHeadEqualsWhole: encoding the large answers an element at
// a time gives the bytes encoding/json gives for the whole value, whatever
// the size hint.
func TestLargeEnvelopeHeadEqualsWhole(t *testing.T) {
	m, _ := largeMonitor(t, 300, 7, 3)
	s := m.snap.Load()
	apps := make([]appJSON, len(s.apps))
	for i := range apps {
		apps[i] = s.appJSON(i)
	}
	summary := s.summaryValue()
	if len(summary.Apps) != 300 {
		t.Fatalf("summary of %d apps", len(summary.Apps))
	}
	for _, tc := range []struct {
		name string
		v    any
	}{
		{"apps", apps},
		{"no apps", []appJSON{}},
		{"nil apps", []appJSON(nil)},
		{"summary", summary},
		{"empty summary", summaryJSON{}},
		{"other", locationJSON{Name: "x", Apps: []string{"a"}}},
	} {
		want := envelopeHead(tc.v)
		for _, hint := range []int64{0, 10, int64(len(want)), 10 * int64(len(want))} {
			var h atomic.Int64
			h.Store(hint)
			got := largeEnvelopeHead(tc.v, &h)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s, hint %d:\n got %.300s\nwant %.300s", tc.name, hint, got, want)
			}
			if h.Load() != int64(len(want)) {
				t.Errorf("%s: hint after %d, want %d", tc.name, h.Load(), len(want))
			}
			if len(got) > 1024 && cap(got) > len(got)+len(got)/8 {
				t.Errorf("%s, hint %d: %d bytes kept for a %d-byte answer", tc.name, hint, cap(got), len(got))
			}
		}
	}
}
