// Package gcpace sets the garbage collector's percentage for the availmon
// binary: Default from the start, and then, after each collection, from the
// part of the live heap that holds pointers.
package gcpace

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Default is the collector's target when the environment sets no GOGC.
// Go's default of 100 lets the heap grow to twice what is live before a
// collection; most of availmon's live heap is pointer-free (check
// histories, day windows), cheap to collect, and it makes little garbage a
// cycle, so a tighter target costs almost no CPU and a third of the
// resident memory (see docs/decisions.md, Serving and memory).
// VictoriaMetrics sets its own GOGC for the same reason.
const Default = 50

// GOGC sizes the heap's headroom, the garbage let grow before a collection,
// as a share of the whole live heap. Most of a large availmon's live heap
// is its record of availability over time: pointer-free bytes that a
// collection does not scan and that a cycle changes by a few bytes an app,
// making almost no garbage. At 10,000 apps with 400 days of 10 outages a
// day it is 190 MB of a 220 MB live heap, and GOGC=50 let the heap grow
// 110 MB past what is live: resident memory paid for bytes that make no
// garbage. The pacer sizes the headroom from what makes garbage instead:
// Default percent of the heap that holds pointers, and of no less than
// paceFloor, so that a heap below paceFloor (10,000 apps without the
// record's past) keeps Default as it is, and a larger one collects no
// more often than such a heap does.
const (
	// paceFloor is the smallest heap the headroom is figured from.
	paceFloor = 64 << 20
	// minGOGC bounds the percentage the pacer sets from below.
	minGOGC = 10
	// paceEvery is how often the pacer looks whether a collection
	// ended: only a collection measures the live heap, and the pacer
	// follows the first one after the heap changed much (a restore, a
	// prune) at once rather than a while later. Reading the figures
	// costs a few microseconds.
	paceEvery = time.Second
)

// gcPercent is the GOGC that gives a live heap of live bytes, of which
// scan hold pointers, the headroom of Default percent of
// max(scan, paceFloor), within [minGOGC, Default].
func gcPercent(live, scan uint64) int {
	if live == 0 {
		return Default
	}
	p := uint64(Default) * max(scan, paceFloor) / live
	return int(min(max(p, minGOGC), Default))
}

// heapReading is what the pacer reads of the runtime: the live heap, the
// part of it that holds pointers, as of the last collection, and how many
// collections ended.
type heapReading struct{ live, scan, cycles uint64 }

// readHeap reads the runtime's figures; false when a runtime lacks them.
func readHeap(samples []metrics.Sample) (heapReading, bool) {
	metrics.Read(samples)
	for _, s := range samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return heapReading{}, false
		}
	}
	return heapReading{samples[0].Value.Uint64(), samples[1].Value.Uint64(), samples[2].Value.Uint64()}, true
}

// Pace sets the collector's percentage from the heap after each
// collection, until ctx ends.
func Pace(ctx context.Context) {
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/heap:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	pace(ctx, func() (heapReading, bool) { return readHeap(samples) }, func(p int) { debug.SetGCPercent(p) })
}

// pace reads the heap at once and then every paceEvery, and calls set
// with the percentage of a reading a new collection made, when it differs
// from the last one set, until ctx ends or read fails.
func pace(ctx context.Context, read func() (heapReading, bool), set func(int)) {
	t := time.NewTicker(paceEvery)
	defer t.Stop()
	last, cycles := Default, ^uint64(0)
	for {
		r, ok := read()
		if !ok {
			return // a runtime without the figures: GOGC stays as set
		}
		if r.cycles != cycles {
			cycles = r.cycles
			if p := gcPercent(r.live, r.scan); p != last {
				set(p)
				last = p
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
