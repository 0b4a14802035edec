package availmon

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/availmon/availmon/promexport"
)

// Failing saves show: the time of the last successful save and a failure
// counter on /metrics, a storage member in /api/status, and system_status
// degraded while the last save failed. A success resets what describes the
// current trouble (the consecutive failures, the error, degraded), not the
// counter.
func TestSaveFailuresReported(t *testing.T) {
	st := newGateStore()
	reg := prometheus.NewPedanticRegistry()
	tm := newStoreMonitor(t, st, newFakeClock(t0), func(o *Options) { o.Registerer = reg })
	tm.src.Set("checkout", StatusUp, time.Millisecond)
	tm.src.Set("search", StatusUp, time.Millisecond)
	tm.src.Set("billing", StatusUp, time.Millisecond)
	tm.run.running.Store(true) // as under Run, which is not healthy when not running
	tm.scrape(t)
	tick, _ := dueSaver(t, tm)
	save := func(err error) {
		t.Helper()
		tm.clock.Advance(time.Minute)
		tm.scrape(t)
		before := tm.persist.saves.promStatus().Failures
		tick()
		st.started(t)
		st.verdict <- err
		waitFor(t, "the save's outcome recorded", func() bool {
			s := tm.persist.saves.promStatus()
			return s.LastSuccess.Equal(tm.clock.Now()) || s.Failures > before
		})
	}
	type storage = map[string]any
	check := func(system string, want storage, last time.Time, failures int) {
		t.Helper()
		data := dataOf(t, tm, "/api/status").(map[string]any)
		if data["system_status"] != system {
			t.Errorf("system_status %v, want %s", data["system_status"], system)
		}
		if diff := cmp.Diff(want, data["storage"]); diff != "" {
			t.Errorf("storage (-want +got):\n%s", diff)
		}
		var lastSeconds float64
		if !last.IsZero() {
			lastSeconds = float64(last.Unix())
		}
		metrics := fmt.Sprintf(`# HELP %[1]s Unix time of the last successful save of the monitor's state; 0 before the first.
# TYPE %[1]s gauge
%[1]s %[2]g
# HELP %[3]s Total saves of the monitor's state that failed.
# TYPE %[3]s counter
%[3]s %[4]d
`, promexport.NameStateLastSave, lastSeconds, promexport.NameStateSaveFailures, failures)
		if err := testutil.GatherAndCompare(reg, strings.NewReader(metrics),
			promexport.NameStateLastSave, promexport.NameStateSaveFailures); err != nil {
			t.Error(err)
		}
	}

	check("healthy", storage{"last_save": nil, "last_save_error": nil, "consecutive_failures": 0.0}, time.Time{}, 0)
	save(nil)
	first := tm.clock.Now()
	check("healthy", storage{"last_save": ts(first), "last_save_error": nil, "consecutive_failures": 0.0}, first, 0)
	save(errors.New("filestore: open data/availmon.state.tmp-1: no space left on device"))
	save(errors.New("filestore: open data/availmon.state.tmp-2: read-only file system"))
	check("degraded", storage{"last_save": ts(first), "consecutive_failures": 2.0,
		"last_save_error": "filestore: open data/availmon.state.tmp-2: read-only file system"}, first, 2)
	save(nil)
	check("healthy", storage{"last_save": ts(tm.clock.Now()), "last_save_error": nil, "consecutive_failures": 0.0},
		tm.clock.Now(), 2)

	problems, err := testutil.GatherAndLint(reg, promexport.NameStateLastSave, promexport.NameStateSaveFailures)
	if err != nil || len(problems) > 0 {
		t.Errorf("promlint: %v %v", problems, err)
	}
}

// A monitor without a Store saves nothing: no storage member, no save
// families (absent, not a 0 that an alert would take for no save ever).
func TestNoStoreNoSaveStatus(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	tm := newTestMonitor(t, func(o *Options) { o.Registerer = reg })
	tm.scrape(t)
	if data := dataOf(t, tm, "/api/status").(map[string]any); data["storage"] != nil {
		t.Errorf("/api/status has storage %v without a Store", data["storage"])
	}
	n, err := testutil.GatherAndCount(reg, promexport.NameStateLastSave, promexport.NameStateSaveFailures)
	if err != nil || n != 0 {
		t.Errorf("%d save series without a Store (%v), want none", n, err)
	}
}

// A successful save reports what it cost: its size (the bytes the store
// got), its time and the part of it that held the cycles off, which is at
// most the whole. The families are absent before the first success, and a
// failed save leaves the last success's figures.
func TestSaveCostReported(t *testing.T) {
	st := newGateStore()
	reg := prometheus.NewPedanticRegistry()
	tm := newStoreMonitor(t, st, newFakeClock(t0), func(o *Options) { o.Registerer = reg })
	tm.src.Set("checkout", StatusUp, time.Millisecond)
	tm.scrape(t)
	tick, _ := dueSaver(t, tm)
	costNames := []string{promexport.NameStateSaveDuration, promexport.NameStateSaveLocked, promexport.NameStateSaveBytes}
	if n, err := testutil.GatherAndCount(reg, costNames...); err != nil || n != 0 {
		t.Fatalf("%d save cost series before any save (%v), want none", n, err)
	}
	save := func(err error) []byte {
		t.Helper()
		before := tm.persist.saves.promStatus()
		tick()
		data := st.started(t)
		st.verdict <- err
		waitFor(t, "the save's outcome recorded", func() bool {
			s := tm.persist.saves.promStatus()
			return s.LastBytes != before.LastBytes || s.Failures > before.Failures
		})
		return data
	}
	data := save(nil)
	gauges := func() map[string]float64 {
		t.Helper()
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, mf := range mfs {
			if slices.Contains(costNames, mf.GetName()) {
				got[mf.GetName()] = mf.GetMetric()[0].GetGauge().GetValue()
			}
		}
		return got
	}
	got := gauges()
	if got[promexport.NameStateSaveBytes] != float64(len(data)) {
		t.Errorf("%s = %g, want the %d bytes saved", promexport.NameStateSaveBytes, got[promexport.NameStateSaveBytes], len(data))
	}
	took, locked := got[promexport.NameStateSaveDuration], got[promexport.NameStateSaveLocked]
	if took <= 0 || locked < 0 || locked > took {
		t.Errorf("save took %gs, held the cycles %gs: want 0 <= held <= took, took > 0", took, locked)
	}
	tm.src.Set("search", StatusUp, time.Millisecond) // a failed save of another size
	tm.scrape(t)
	save(errors.New("no space left on device"))
	if after := gauges(); after[promexport.NameStateSaveBytes] != float64(len(data)) {
		t.Errorf("after a failed save %s = %g, want the last success's %d", promexport.NameStateSaveBytes, after[promexport.NameStateSaveBytes], len(data))
	}
	if problems, err := testutil.GatherAndLint(reg, costNames...); err != nil || len(problems) > 0 {
		t.Errorf("promlint: %v %v", problems, err)
	}
}
