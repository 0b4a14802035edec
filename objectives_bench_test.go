package availmon

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/availmon/availmon/objective"
)

// BenchmarkObjectivesCycle1000x10k is the work objectives add to a cycle of
// the monitor: 1,000 objectives (900 on one app each, 100 on a selection
// of 100 apps each, every app in one) over 10,000 apps, evaluated from the
// snapshot's Book as publish does it, windows rolling and calendar.
func BenchmarkObjectivesCycle1000x10k(b *testing.B) {
	const apps = 10_000
	o := Options{Locations: []Location{telAviv, frankfurt}}
	for i := range apps {
		o.Apps = append(o.Apps, App{Name: fmt.Sprintf("app-%05d", i), Location: []string{"Tel Aviv", "Frankfurt"}[i%2],
			Metric: "up", Labels: map[string]string{"team": fmt.Sprintf("t%02d", i%100)}})
	}
	windows := []string{"28d", "30d", "90d", "month", "quarter"}
	for k := range 900 {
		o.Objectives = append(o.Objectives, mustObjective(b, fmt.Sprintf("app-%d", k), "99.9%", windows[k%len(windows)],
			objective.Subject{App: o.Apps[k*11].Name}, map[string]string{"team": "x"}))
	}
	for k := range 100 {
		o.Objectives = append(o.Objectives, mustObjective(b, fmt.Sprintf("team-%d", k), "99.5%", windows[k%len(windows)],
			objective.Subject{Selector: map[string]string{"team": fmt.Sprintf("t%02d", k)}}, nil))
	}
	src := newFakeSource()
	for i := range apps {
		st := StatusUp
		if i%100 == 7 {
			st = StatusDown
		}
		src.Set(o.Apps[i].Name, st, time.Millisecond)
	}
	clock := newFakeClock(t0)
	o.Source, o.Clock = src, clock
	m, err := New(o)
	if err != nil {
		b.Fatal(err)
	}
	for k := range 10 {
		clock.Set(t0.Add(time.Duration(k) * time.Minute))
		if err := m.Scrape(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	s := m.snap.Load()
	m.cycleMu.Lock()
	defer m.cycleMu.Unlock()
	b.ReportAllocs()
	for b.Loop() {
		m.evaluateObjectives(s, s.made)
	}
}
