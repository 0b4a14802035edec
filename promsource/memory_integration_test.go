//go:build !race

package promsource_test

import (
	"runtime"
	"testing"

	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
	"github.com/availmon/availmon/promsource"
)

// A 100 MB answer costs availmon about its response limit in memory, not
// the answer's size (without a bound it decoded the whole body: gigabytes).
// Allocation figures are only meaningful without the race detector, and
// with no other test running: this test is not parallel.
func TestPrometheusHugeAnswerMemory(t *testing.T) {
	rig := availtest.NewFaultRig(t)
	const limit = 4 << 20
	rm := rig.Monitor(availtest.MonitorSetup{Apps: availtest.GoodApps(10), BatchSize: promsource.BatchSize,
		Source: promsource.Options{MaxResponseBytes: limit}})
	rig.Proxy.Inject(promtest.Rule{Fault: promtest.HugeVector(100 << 20)})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rm.Cycle()
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("one cycle with a 100 MB answer and a %d-byte limit allocated %d bytes", limit, alloc)
	if alloc > 12*limit {
		t.Errorf("one cycle allocated %d bytes for a %d-byte limit", alloc, limit)
	}
}
