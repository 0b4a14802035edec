package timeline

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
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

// appendRun writes a run only if it takes fewer bytes than its limit, so
// that a packing in place writes it over the tokens it replaces: the size
// it reckons before writing is the size it writes.
func TestAppendRunLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 500 {
		gaps := make([]int64, 2+rng.IntN(maxRun))
		scale := int64(1) << rng.IntN(18)
		for j := range gaps {
			gaps[j] = 1 + rng.Int64N(scale)
		}
		b := []byte{7}
		full, ok := appendRun(b, gaps, 1<<30)
		if !ok {
			t.Fatalf("case %d: a run with no limit was not written", i)
		}
		size := len(full) - len(b)
		if got, ok := appendRun(b, gaps, size); ok || len(got) != len(b) {
			t.Fatalf("case %d: a run of %d bytes written under a limit of as many (%d bytes)", i, size, len(got)-len(b))
		}
		if got, ok := appendRun(b[:1:1], gaps, size+1); !ok || !bytes.Equal(got, full) {
			t.Fatalf("case %d: a run of %d bytes not written as it was under a limit of one more", i, size)
		}
	}
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

// TestPropertyRuns holds records of many days of outages (runs packed as
// they are written, and on every rewrite) to the model: random checks that
// mostly alternate up and down, with now and then a gap, a fill, a
// maintenance window, a prune or a restart; views taken along the way
// answer later as they did when taken.
func TestPropertyRuns(t *testing.T) {
	seeds, days := 3, 30
	if testing.Short() || raceEnabled { // the model is slow under the race detector
		seeds, days = 1, 12
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { propertyRunsRun(t, seed, days) })
	}
}

func propertyRunsRun(t *testing.T, seed uint64, days int) {
	rng := rand.New(rand.NewPCG(seed, 27))
	t0 := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	m := newModel(t0, days)
	var r Record
	lo, hi := m.t0, m.t0+m.n
	now := lo + rng.Int64N(3600)
	type kept struct {
		v       View
		tot     Totals
		n       int
		from, b time.Time
	}
	var views []kept
	s := Up
	for now < hi-3*3600 {
		switch k := rng.IntN(10000); {
		case k < 8800: // a check: mostly the other state than the last, an outage starting or ending
			now += 1 + rng.Int64N(2400)
			if rng.IntN(40) == 0 {
				now += rng.Int64N(3 * 3600) // a gap: unknown time after the hold
			}
			if s == Up {
				s = Down
			} else {
				s = Up
			}
			if rng.IntN(30) == 0 {
				s = []State{Up, Down, Unknown, Partial}[rng.IntN(4)]
			}
			r.Check(instant(now), s, 2*time.Hour)
			m.check(now, s, 2*3600)
		case k < 8810:
			a := lo + rng.Int64N(max(now-lo, 1))
			b := min(a+1+rng.Int64N(4*3600), now)
			st := []State{Up, Down, Partial}[rng.IntN(3)]
			r.Fill(Span{From: instant(a), To: instant(b), State: st})
			m.fill([]edit{{a: a, b: b, s: st}})
		case k < 8820:
			a := lo + rng.Int64N(hi-lo-3600)
			b := min(a+1+rng.Int64N(6*3600), hi)
			on := rng.IntN(4) > 0
			r.SetMaintenance(instant(a), instant(b), on)
			m.maint(a, b, on)
		case k < 8825:
			c := lo + rng.Int64N(max(now-lo, 1)/8)
			r.Prune(instant(c))
			m.prune(c)
		case k < 8840:
			b, _ := r.View().AppendBinary(nil)
			var n Record
			if err := n.UnmarshalBinary(b); err != nil {
				t.Fatalf("decoding what was encoded: %v", err)
			}
			r = n
		case k < 9950: // often, so that some are taken just before a packing
			v := r.View()
			from, to := instant(lo+rng.Int64N(hi-lo)), instant(hi)
			n, _ := v.CountOutages(from, to)
			views = append(views, kept{v, v.Totals(from, to), n, from, to})
		default:
			compare(t, rng, &r, m, lo, hi, false)
		}
		if t.Failed() {
			return
		}
	}
	compare(t, rng, &r, m, lo, hi, false)
	for i, k := range views {
		n, _ := k.v.CountOutages(k.from, k.b)
		if got := k.v.Totals(k.from, k.b); got != k.tot || n != k.n {
			t.Errorf("view %d answers %+v, %d outages; it answered %+v, %d when taken", i, got, n, k.tot, k.n)
		}
	}
	runs := 0
	v := r.View()
	for c := (cursor{}); int(c.off) < len(v.data); {
		if readToken(v.data, &c) != nil {
			t.Fatal("the record's stream does not read")
		}
		if c.run.left > 0 {
			runs++
		}
		if c.v1 == flap {
			t.Fatal("a day flapped")
		}
	}
	t.Logf("%d changes in runs, in %d bytes; %d views", runs, len(v.data), len(views))
	if runs == 0 {
		t.Error("no run")
	}
}
