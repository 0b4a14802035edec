package history

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// benchChecks returns n checks a second apart with response times of 20 to
// 80 ms, as a healthy app's history holds them; with distinct, each has an
// error text of its own (a failing app naming the connection's port).
func benchChecks(n int, distinct bool) []Check {
	r := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC).UnixNano()
	es := make([]Check, n)
	for i := range es {
		es[i] = Check{At: start + int64(i)*int64(time.Second),
			RT: 20*time.Millisecond + time.Duration(r.Int64N(int64(60*time.Millisecond))), Status: Up}
		if distinct {
			es[i].Status = Down
			es[i].Err = fmt.Sprintf("dial tcp 10.0.0.1:%d: connect: connection refused", 30000+i)
		}
	}
	return es
}

func BenchmarkHistoryAdd(b *testing.B) {
	for _, bc := range []struct {
		name     string
		distinct bool
	}{{"up", false}, {"distinct-errors", true}} {
		b.Run(bc.name, func(b *testing.B) {
			const size = 100
			es := benchChecks(4*size, bc.distinct)
			var h Checks
			for _, e := range es {
				h.Add(e, size, nil)
			}
			b.ReportAllocs()
			b.ResetTimer()
			at := es[len(es)-1].At
			for i := 0; b.Loop(); i++ {
				e := es[i%len(es)]
				at += int64(time.Second)
				e.At = at
				h.Add(e, size, nil)
			}
		})
	}
}

// A cycle's apps adding a check whose response time they share: the
// histories refer to one entry of the table per cycle.
func BenchmarkHistoryAddShared(b *testing.B) {
	const apps, size = 1000, 100
	es := benchChecks(size, false)
	rts := new(SharedRTs)
	hs := make([]Checks, apps)
	for _, e := range es {
		for i := range hs {
			hs[i].AddShared(e, size, rts)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	at := es[len(es)-1].At
	for i := 0; b.Loop(); i++ {
		k := i % apps
		if k == 0 {
			at += int64(time.Second)
		}
		hs[k].AddShared(Check{At: at, RT: 300 * time.Millisecond}, size, rts)
	}
}

func BenchmarkHistoryList(b *testing.B) {
	const size = 100
	var h Checks
	for _, e := range benchChecks(size, false) {
		h.Add(e, size, nil)
	}
	dst := make([]Check, 0, size)
	b.ReportAllocs()
	for b.Loop() {
		dst = h.AppendTo(dst[:0], nil)
	}
}

// A save reads every app's checks, those of the apps a query answered one
// after another: their references to the table are read time by time.
func BenchmarkHistoryListShared(b *testing.B) {
	const apps, size = 1000, 100
	rts := new(SharedRTs)
	hs := make([]Checks, apps)
	for _, e := range benchChecks(size, false) {
		e.RT = 300 * time.Millisecond
		for i := range hs {
			hs[i].AddShared(e, size, rts)
		}
	}
	dst := make([]Check, 0, size)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		dst = hs[i%apps].AppendTo(dst[:0], rts)
	}
}
