package objective_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/timeline"
)

// fleetEnd is the instant the synthetic fleet's record ends at; cycles
// evaluate just after it.
var fleetEnd = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

var (
	fleetOnce sync.Once
	fleet     []timeline.View
)

// syntheticFleet is 10,000 apps with 100 days of history, 1% of them
// (every hundredth, so that every selection of 100 has one) with an outage
// a day of a second to 30 minutes at a random time. Apps are checked once
// a day: a record's cost does not depend on how often a steady app is
// checked.
func syntheticFleet() []timeline.View {
	fleetOnce.Do(func() {
		const apps, days = 10_000, 100
		rng := rand.New(rand.NewPCG(1, 28))
		start := fleetEnd.AddDate(0, 0, -days)
		fleet = make([]timeline.View, apps)
		for i := range fleet {
			var r timeline.Record
			for d := range days {
				t := start.AddDate(0, 0, d)
				r.Check(t, timeline.Up, 25*time.Hour)
				if i%100 == 7 {
					down := t.Add(time.Duration(rng.Int64N(int64(12 * time.Hour))))
					r.Check(down, timeline.Down, 25*time.Hour)
					r.Check(down.Add(time.Duration(1+rng.IntN(30*60))*time.Second), timeline.Up, 25*time.Hour)
				}
			}
			r.Check(fleetEnd, timeline.Up, time.Minute)
			fleet[i] = r.View()
		}
	})
	return fleet
}

// objectives is a cycle's work: 900 objectives on one app each and 100 on
// a selection of 100 apps each (every app in one), over rolling windows of
// 28, 30 and 90 days and calendar months and quarters in UTC and Berlin.
func objectives(b *testing.B) ([]objective.Objective, []objective.Source) {
	vs := syntheticFleet()
	berlin := mustZone(b, "Europe/Berlin")
	windows := []objective.Window{mustWindow(b, "28d", nil), mustWindow(b, "30d", nil), mustWindow(b, "90d", nil),
		mustWindow(b, "month", nil), mustWindow(b, "month", berlin), mustWindow(b, "quarter", berlin)}
	var os []objective.Objective
	var srcs []objective.Source
	for i := range 1000 {
		o := objective.Objective{Name: fmt.Sprint("o", i), Target: 0.999, Window: windows[i%len(windows)]}
		var src objective.Source = vs[i*10]
		if i >= 900 {
			k := (i - 900) * 100
			src = objective.Views(vs[k : k+100])
		}
		os, srcs = append(os, o), append(srcs, src)
	}
	return os, srcs
}

// One op: a cycle, every objective evaluated once.
func BenchmarkCycle1000Objectives10kApps(b *testing.B) {
	os, srcs := objectives(b)
	now := fleetEnd.Add(15 * time.Second)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		for i := range os {
			os[i].Evaluate(now, srcs[i])
		}
	}
}

func BenchmarkEvaluateOneApp(b *testing.B) {
	benchEvaluate(b, "30d", objective.Views(syntheticFleet()[7:8]))
}

func BenchmarkEvaluateSelection100Apps(b *testing.B) {
	benchEvaluate(b, "30d", objective.Views(syntheticFleet()[:100]))
}

func BenchmarkEvaluateMonthBerlin100Apps(b *testing.B) {
	benchEvaluate(b, "month", objective.Views(syntheticFleet()[:100]))
}

func benchEvaluate(b *testing.B, window string, src objective.Source) {
	o := objective.Objective{Name: "b", Target: 0.999, Window: mustWindow(b, window, mustZone(b, "Europe/Berlin"))}
	now := fleetEnd.Add(15 * time.Second)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		o.Evaluate(now, src)
	}
}

// One op: the daily series of a 90-day window over 100 apps, as the API
// computes it for a chart.
func BenchmarkSeries90dSelection100Apps(b *testing.B) {
	o := objective.Objective{Name: "b", Target: 0.999, Window: mustWindow(b, "90d", nil)}
	src := objective.Views(syntheticFleet()[:100])
	now := fleetEnd.Add(15 * time.Second)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		o.Series(now, src)
	}
}

// The window's range alone: what a calendar window costs before reading.
func BenchmarkWindowRangeQuarterBerlin(b *testing.B) {
	w := mustWindow(b, "quarter", mustZone(b, "Europe/Berlin"))
	defer reportCPU(b)()
	for b.Loop() {
		_ = w.Range(fleetEnd)
	}
}

// reportCPU reports the process's CPU time per op (user and system, the
// garbage collector's included) beside the wall time: on a shared machine
// the wall time counts the waits for a core too.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
