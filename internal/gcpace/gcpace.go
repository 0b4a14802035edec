// Package gcpace sets the garbage collector's percentage and soft memory
// limit for the availmon binary: Default from the start, and then, after
// each collection, from the part of the live heap that holds pointers.
package gcpace

import (
	"context"
	"math"
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
const Default = 35

// GOGC sizes the heap's headroom, the garbage let grow before a collection,
// as a share of the whole live heap. Most of availmon's live heap is
// pointer-free bytes that a collection does not scan and that a cycle
// changes by a few bytes an app, making almost no garbage: the check
// histories, and the record of availability over time (at 10,000 apps with
// 400 days of 10 outages a day, 170 MB of a 200 MB live heap). A fixed
// GOGC lets the heap grow by its share of all that, resident memory paid
// for bytes that make no garbage, so the pacer sizes the headroom from
// what makes garbage and what a collection costs: Default percent of the
// heap that holds pointers, and of no less than paceFloor, so that a
// collection marks at most about three times its headroom of pointers, however
// large the pointer-free part.
const (
	// paceFloor is the smallest heap the headroom is figured from: it
	// keeps a collection's fixed costs (stacks, globals, the stop of
	// the world) a small part of the garbage it frees.
	paceFloor = 23 << 20
	// minGOGC bounds the percentage the pacer sets from below.
	minGOGC = 2
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

// The soft memory limit only trims what the runtime keeps over the heap
// goal. Without a limit Go's scavenger keeps the heap's pages at 10% over
// the largest heap of the last cycle (retainExtraPercent in
// runtime/mgcscavenge.go), and a peak (the restore, a backfill, a prune)
// stays that much larger until the collections that follow shrink it;
// with a limit it returns what exceeds 95% of the limit. The pacer sets
// the limit to the goal with limitSlack over it, plus the heap's unused
// slots and the runtime's memory that is not the heap's (stacks,
// metadata), over those 95%: the runtime takes both off the limit for the
// heap goal it derives from it, so only with them there does the goal
// still pace the collections, and the limit the scavenger.
const (
	// limitSlackShift gives the share of the goal kept over it (1/32:
	// 3%), for the slots the heap leaves unused as it grows to the goal,
	// past those measured after the collection. The scavenger keeps that
	// much resident besides the goal: at 100,000 apps 1/16 would be 8 MB
	// more, and the limit's own heap goal stays over the
	// pacer's either way (TestMemoryLimitLeavesTheGoal).
	limitSlackShift = 5
	// scavengeTarget is the share of the limit, in percent, that Go's
	// scavenger works toward (100 - reduceExtraPercent).
	scavengeTarget = 95
	// growthShift: a live heap more than 1/4 larger than at the last
	// collection is growing (a restore, a reload with many new apps),
	// and a limit made for the smaller one would make the collector
	// run often; it runs without one until the heap holds still.
	growthShift = 2
)

// memoryLimit is the soft limit for a heap reading r paced at percent p,
// following the reading before, prev; math.MaxInt64 (no limit) while the
// heap grows.
func memoryLimit(prev, r heapReading, p int) int64 {
	if r.live == 0 || r.live > prev.live+prev.live>>growthShift {
		return math.MaxInt64
	}
	goal := r.live + r.live*uint64(p)/100
	l := (goal + goal>>limitSlackShift + r.unused + r.other) * 100 / scavengeTarget
	return int64(min(l, math.MaxInt64))
}

// heapReading is what the pacer reads of the runtime as of the last
// collection: the live heap, the part of it that holds pointers, how many
// collections ended, the bytes of the heap's spans that hold no object,
// and the runtime's memory besides the heap's pages (stacks, metadata):
// what a memory limit counts that the goal does not.
type heapReading struct{ live, scan, cycles, unused, other uint64 }

// The runtime's figures the pacer reads, in the order readHeap takes them.
var sampleNames = [...]string{
	"/gc/heap/live:bytes",
	"/gc/scan/heap:bytes",
	"/gc/cycles/total:gc-cycles",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
}

// readHeap reads the runtime's figures; false when a runtime lacks them.
func readHeap(samples []metrics.Sample) (heapReading, bool) {
	metrics.Read(samples)
	var v [len(sampleNames)]uint64
	for i, s := range samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return heapReading{}, false
		}
		v[i] = s.Value.Uint64()
	}
	heap := v[4] + v[5] + v[6] + v[7]
	return heapReading{live: v[0], scan: v[1], cycles: v[2], unused: v[5], other: v[3] - min(heap, v[3])}, true
}

// Pace sets the collector's percentage, and when limit is true its soft
// memory limit, from the heap after each collection, until ctx ends.
// The limit is left alone when limit is false (GOMEMLIMIT in the
// environment is the operator's).
func Pace(ctx context.Context, limit bool) {
	samples := make([]metrics.Sample, len(sampleNames))
	for i, n := range sampleNames {
		samples[i].Name = n
	}
	setLimit := func(int64) {}
	if limit {
		setLimit = func(l int64) { debug.SetMemoryLimit(l) }
	}
	pace(ctx, func() (heapReading, bool) { return readHeap(samples) }, func(p int) { debug.SetGCPercent(p) }, setLimit)
}

// pace reads the heap at once and then every paceEvery, and for a reading
// that a new collection made calls set with its percentage and setLimit
// with its memory limit, each when it differs from the last one set,
// until ctx ends or read fails.
func pace(ctx context.Context, read func() (heapReading, bool), set func(int), setLimit func(int64)) {
	t := time.NewTicker(paceEvery)
	defer t.Stop()
	last, lastLimit := Default, int64(math.MaxInt64)
	prev := heapReading{cycles: ^uint64(0)}
	for {
		r, ok := read()
		if !ok {
			return // a runtime without the figures: GOGC stays as set
		}
		if r.cycles != prev.cycles {
			p := gcPercent(r.live, r.scan)
			if p != last {
				set(p)
				last = p
			}
			if l := memoryLimit(prev, r, p); l != lastLimit {
				setLimit(l)
				lastLimit = l
			}
			prev = r
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
