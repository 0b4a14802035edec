package timeline

import (
	"encoding/binary"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var writeGolden = flag.Bool("golden", false, "write testdata/records-v1.bin with this code's encoding (only the code of encoding 1 may)")

// goldenRecords are the records of testdata/records-v1.bin, built anew:
// 30 days of 10 outages a day, a day of an app flapping, a record with
// maintenance, filled time and a removal, and one still flapping today.
func goldenRecords() []Record {
	rs := fleet(2, 2, 30, 10)
	var f Record
	f.Check(day0, Up, m)
	flaps(&f, 300)
	f.Check(day0.Add(30*h), Down, h)
	var g Record
	for _, o := range []op{check(0, Up, h), check(10*m, Down, h), maint(h, 2*h, true), fill(-h, h, Partial), func(r *Record) { r.SetRemoved(at(3 * h)) }} {
		o(&g)
	}
	var l Record
	l.Check(day0, Up, m)
	flaps(&l, 300)
	return append(rs, f, g, l)
}

// TestRestoreOldForm decodes records written in encoding 1 (the form of
// state files before runs of bit-coded changes): they answer as the same
// records built anew, and encode again in the current form.
func TestRestoreOldForm(t *testing.T) {
	want := goldenRecords()
	if *writeGolden {
		var b []byte
		for i := range want {
			enc, _ := want[i].View().AppendBinary(nil)
			b = binary.AppendUvarint(b, uint64(len(enc)))
			b = append(b, enc...)
		}
		if err := os.WriteFile("testdata/records-v1.bin", b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile("testdata/records-v1.bin")
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			t.Fatalf("record %d: bad length", i)
		}
		enc := b[k : k+int(n)]
		b = b[k+int(n):]
		if enc[0] != 1 {
			t.Fatalf("record %d: version %d, want the old form 1", i, enc[0])
		}
		var got Record
		if err := got.UnmarshalBinary(enc); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		sameAnswers(t, want[i].View(), got.View())
		again, _ := got.View().AppendBinary(nil)
		var r2 Record
		if err := r2.UnmarshalBinary(again); err != nil {
			t.Fatalf("record %d re-encoded: %v", i, err)
		}
		sameAnswers(t, want[i].View(), r2.View())
	}
	if len(b) != 0 {
		t.Fatalf("%d bytes after the records", len(b))
	}
}

// sameAnswers compares what two views answer over their whole time and
// its days.
func sameAnswers(t *testing.T, want, got View) {
	t.Helper()
	from, to := fleetEnd.AddDate(0, 0, -40), fleetEnd.Add(48*time.Hour)
	if d := cmp.Diff(want.Totals(from, to), got.Totals(from, to)); d != "" {
		t.Errorf("totals (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want.Outages(from, to), got.Outages(from, to)); d != "" {
		t.Errorf("outages (-want +got):\n%s", d)
	}
	var bounds []time.Time
	for x := from; !x.After(to); x = x.Add(24 * time.Hour) {
		bounds = append(bounds, x)
	}
	ws, gs := make([]Totals, len(bounds)-1), make([]Totals, len(bounds)-1)
	want.AddSteps(ws, bounds)
	got.AddSteps(gs, bounds)
	if d := cmp.Diff(ws, gs); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
}
