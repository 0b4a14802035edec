package timeline

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// withStream returns an encoding (version ver) of a record whose stream is
// data and whose time ends at end.
func withStream(ver byte, end int64, data []byte) []byte {
	b := []byte{ver, 0}
	b = binary.AppendUvarint(b, uint64(end))
	b = append(b, 0, 0, 0, 0)
	b = binary.AppendUvarint(b, uint64(len(data)))
	b = append(b, data...)
	return append(b, 0)
}

// runRecord is a record whose stream holds runs: 30 days of 10 outages a
// day at random times.
func runRecord() Record { return fleet(1, 1, 30, 10)[0] }

// FuzzDecodeRuns feeds arbitrary streams (runs of bit-coded changes among
// them) to UnmarshalBinary, in both encodings: it never panics, refuses
// with ErrCorrupt, and what it accepts answers as its encoding does
// decoded again.
func FuzzDecodeRuns(f *testing.F) {
	r := runRecord()
	v := r.View()
	f.Add(byte(2), v.end, v.data)
	f.Add(byte(1), v.end, v.data)
	f.Add(byte(2), v.end, v.data[:len(v.data)/2])
	rr := regularOutages(20)
	f.Add(byte(2), rr.st.end, rr.st.data)
	flipped := bytes.Clone(v.data)
	flipped[len(flipped)/3] ^= 0x10
	f.Add(byte(2), v.end, flipped)
	f.Fuzz(func(t *testing.T, ver byte, end int64, data []byte) {
		ver = 1 + ver%2
		end = min(max(end, minSec), inf)
		var c cursor // reading tokens alone never panics either
		for i := 0; i < 1000 && int(c.off) < len(data) && readToken(data, &c) == nil; i++ {
		}
		var r Record
		err := r.UnmarshalBinary(withStream(ver, end, data))
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		enc, _ := r.View().AppendBinary(nil)
		var again Record
		if err := again.UnmarshalBinary(enc); err != nil {
			t.Fatalf("re-encoding an accepted record: %v", err)
		}
		from, to := instant(minSec), instant(inf)
		if first := r.st.first(); first < inf {
			from, to = instant(first).Add(-time.Hour), instant(r.st.end).Add(time.Hour)
		}
		if d := cmp.Diff(r.View().Totals(from, to), again.View().Totals(from, to)); d != "" {
			t.Fatalf("totals (-accepted +re-encoded):\n%s", d)
		}
		if len(data) < 300 {
			if d := cmp.Diff(r.View().Outages(from, to), again.View().Outages(from, to)); d != "" {
				t.Fatalf("outages (-accepted +re-encoded):\n%s", d)
			}
		}
	})
}

// Streams with runs that must be refused, each for its own reason.
func TestDecodeRefusesRuns(t *testing.T) {
	r := runRecord()
	v := r.View()
	runAt := -1
	var c cursor
	for int(c.off) < len(v.data) {
		p := c.off
		if err := readToken(v.data, &c); err != nil {
			t.Fatal(err)
		}
		if c.run.left > 0 {
			runAt = int(p)
			break
		}
	}
	if runAt < 0 {
		t.Fatal("the record has no run")
	}
	head := v.data[:runAt]
	var tooMany []byte // 101 changes a second apart in a day
	for i := range ExactChangesPerDay + 1 {
		if i == 0 {
			tooMany = append(tooMany, 0)
			tooMany = binary.AppendUvarint(tooMany, uint64(sec(day0))<<4|uint64(Up))
			tooMany = append(tooMany, 0)
			tooMany = binary.AppendUvarint(tooMany, 1<<4|uint64(Down))
			continue
		}
		tooMany = append(tooMany, 1)
	}
	for _, tt := range []struct {
		name string
		b    []byte
	}{
		{"a run in encoding 1", withStream(1, v.end, v.data)},
		{"a run cut short", withStream(2, v.end, v.data[:runAt+12])},
		{"a run with no change after its first", withStream(2, v.end, append(bytes.Clone(head), 0, 1<<4|byte(runTok), 0, 0, 1, 1))},
		{"a run's least gap of 0", withStream(2, v.end, append(bytes.Clone(head), 0, 1<<4|byte(runTok), 1, 0, 0, 1, 0))},
		{"a run holding the last day", withStream(2, v.end, append(bytes.Clone(head), 0, 1<<4|byte(runTok), 1, 0, 1, 1, 0))},
		{"more changes in a day than kept exactly", withStream(2, sec(day0)+daySec, tooMany)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r Record
			err := r.UnmarshalBinary(tt.b)
			t.Log(err)
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("error %v, want ErrCorrupt", err)
			}
		})
	}
	var ok Record
	if err := ok.UnmarshalBinary(withStream(2, v.end, v.data)); err != nil {
		t.Errorf("the stream itself: %v", err)
	}
}
