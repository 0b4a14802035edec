package main

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// GOGC sizes the heap's headroom, the garbage let grow before a collection,
// as a share of the whole live heap. Most of a large availmon's live heap
// is its record of availability over time: pointer-free bytes that a
// collection does not scan and that a cycle changes by a few bytes an app,
// making almost no garbage. At 10,000 apps with 400 days of 10 outages a
// day it is 190 MB of a 220 MB live heap, and GOGC=50 let the heap grow
// 110 MB past what is live: resident memory paid for bytes that make no
// garbage. The pacer sizes the headroom from what makes garbage instead:
// defaultGOGC percent of the heap that holds pointers, and of no less than
// paceFloor, so that a heap below paceFloor (10,000 apps without the
// record's past) keeps defaultGOGC as it is, and a larger one collects no
// more often than such a heap does.
const (
	// paceFloor is the smallest heap the headroom is figured from.
	paceFloor = 64 << 20
	// minGOGC bounds the percentage the pacer sets from below.
	minGOGC = 10
	// paceEvery is how often the pacer looks at the heap: the record
	// grows by a day's changes a day.
	paceEvery = 15 * time.Second
)

// gcPercent is the GOGC that gives a live heap of live bytes, of which
// scan hold pointers, the headroom of defaultGOGC percent of
// max(scan, paceFloor), within [minGOGC, defaultGOGC].
func gcPercent(live, scan uint64) int {
	if live == 0 {
		return defaultGOGC
	}
	p := uint64(defaultGOGC) * max(scan, paceFloor) / live
	return int(min(max(p, minGOGC), defaultGOGC))
}

// paceGC sets the collector's percentage from the heap every paceEvery,
// until ctx ends.
func paceGC(ctx context.Context) {
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/heap:bytes"}}
	t := time.NewTicker(paceEvery)
	defer t.Stop()
	last := defaultGOGC
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		metrics.Read(samples)
		if samples[0].Value.Kind() != metrics.KindUint64 || samples[1].Value.Kind() != metrics.KindUint64 {
			return // a runtime without the figures: GOGC stays as set
		}
		if p := gcPercent(samples[0].Value.Uint64(), samples[1].Value.Uint64()); p != last {
			debug.SetGCPercent(p)
			last = p
		}
	}
}
