package ledger

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/availmon/availmon/timeline"
	"github.com/google/go-cmp/cmp"
)

var writeGolden = flag.Bool("golden", false, "write testdata/records-encoding-1.bin (only a ledger whose records are of timeline's encoding 1 may)")

// oldFormEnd is when the ledger of oldFormLedger ends.
var oldFormEnd = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

func oldFormLayout() Layout {
	return Layout{Locations: []string{"l1", "l2"}, Apps: []AppRef{{"a", "l1"}, {"b", "l1"}, {"c", "l2"}}}
}

// oldFormLedger is 3 apps at 2 locations over 40 days, each with 10
// outages a day at random times (a check a day holds for the day).
func oldFormLedger() *Ledger {
	rng := rand.New(rand.NewPCG(3, 4))
	start := oldFormEnd.AddDate(0, 0, -40)
	l := New(Options{})
	l.SetLayout(start, oldFormLayout(), nil)
	hold := 24*time.Hour + time.Second
	for d := range 40 {
		day := start.AddDate(0, 0, d)
		for i := range 3 {
			l.Check(i, day, timeline.Up, hold, false)
		}
		l.EndCycle(day, hold, nil, nil)
		for k := range 10 {
			slot := day.Add(time.Duration(k) * 144 * time.Minute)
			for i := range 3 {
				at := slot.Add(time.Duration(rng.IntN(3600)) * time.Second)
				l.Check(i, at, timeline.Down, hold, false)
				l.EndCycle(at, hold, nil, nil)
				up := at.Add(time.Duration(1+rng.IntN(1800)) * time.Second)
				l.Check(i, up, timeline.Up, hold, false)
				l.EndCycle(up, hold, nil, nil)
			}
		}
	}
	for i := range 3 {
		l.Check(i, oldFormEnd, timeline.Up, hold, false)
	}
	l.EndCycle(oldFormEnd, hold, nil, nil)
	return l
}

// A ledger saved when timeline's records were of encoding 1 (before runs
// of bit-coded changes; testdata/records-encoding-1.bin) restores to the
// figures and outages of the same ledger built anew, and is saved again
// in the current, smaller form.
func TestRestoreOldFormRecords(t *testing.T) {
	want := oldFormLedger()
	if *writeGolden {
		if err := os.WriteFile("testdata/records-encoding-1.bin", want.AppendBinary(nil), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile("testdata/records-encoding-1.bin")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	got := New(Options{})
	got.SetLayout(oldFormEnd, oldFormLayout(), nil)
	got.Restore(s, oldFormEnd)
	wb, gb := want.Book(oldFormEnd), got.Book(oldFormEnd)
	from := oldFormEnd.AddDate(0, 0, -41)
	for k := range nKinds {
		if wb.Len(k) != gb.Len(k) {
			t.Fatalf("%s: %d entities, want %d", k, gb.Len(k), wb.Len(k))
		}
		for i := range wb.Len(k) {
			w, g := wb.View(k, i), gb.View(k, i)
			name := fmt.Sprintf("%s %s", k, wb.Name(k, i))
			if d := cmp.Diff(w.Totals(from, oldFormEnd), g.Totals(from, oldFormEnd)); d != "" {
				t.Errorf("%s: totals (-built +restored):\n%s", name, d)
			}
			if d := cmp.Diff(w.Outages(from, oldFormEnd), g.Outages(from, oldFormEnd)); d != "" {
				t.Errorf("%s: outages (-built +restored):\n%s", name, d)
			}
		}
	}
	if again := got.AppendBinary(nil); len(again) >= len(data) {
		t.Errorf("saved again in %d bytes, the old form took %d", len(again), len(data))
	}
}
