package hmac

import (
	"bytes"
	"testing"
	"time"
)

// FuzzDecodeReplay: the replay file's reader never panics, returns only
// records that are whole and aligned in the data, and reads back what the
// writer wrote.
func FuzzDecodeReplay(f *testing.F) {
	var e ReplayEntry
	copy(e.Signature[:], "0123456789abcdef0123456789abcdef")
	e.Expires = time.Unix(1795435200, 0)
	good := appendRecord([]byte(replayMagic), e)
	f.Add([]byte{})
	f.Add(good)
	f.Add(append(bytes.Clone(good), good[8:30]...))
	f.Add([]byte("AVMRPL\x00\x02"))
	f.Fuzz(func(t *testing.T, data []byte) {
		es, _ := decodeReplay(data)
		if len(data) < len(replayMagic) && len(es) > 0 || len(es) > (len(data)-len(replayMagic))/replayRecordSize+1 {
			t.Fatalf("%d records from %d bytes", len(es), len(data))
		}
		for _, e := range es {
			rec := appendRecord(nil, e)
			found := false
			for off := len(replayMagic); off+replayRecordSize <= len(data); off += replayRecordSize {
				if bytes.Equal(data[off:off+replayRecordSize], rec) {
					found = true
					break
				}
			}
			if !found {
				t.Fatalf("record %x is not in the data", rec)
			}
		}
		b := []byte(replayMagic)
		for _, e := range es {
			b = appendRecord(b, e)
		}
		again, bad := decodeReplay(b)
		if bad != nil || len(again) != len(es) {
			t.Fatalf("round trip: %d records (%v), want %d", len(again), bad, len(es))
		}
		for i := range es {
			if again[i].Signature != es[i].Signature || !again[i].Expires.Equal(es[i].Expires) {
				t.Fatalf("record %d: %+v, want %+v", i, again[i], es[i])
			}
		}
	})
}
