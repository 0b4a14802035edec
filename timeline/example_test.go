package timeline_test

import (
	"fmt"
	"time"

	"github.com/availmon/availmon/timeline"
)

// An app checked every minute, down for ten minutes, with a maintenance
// window set ahead over part of it, and an hour the monitor did not see
// that the backfill filled in later.
func Example() {
	start := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	var r timeline.Record
	r.SetMaintenance(start.Add(30*time.Minute), start.Add(35*time.Minute), true)
	for i := range 60 {
		st := timeline.Up
		if i >= 25 && i < 35 {
			st = timeline.Down
		}
		r.Check(start.Add(time.Duration(i)*time.Minute), st, 2*time.Minute)
	}
	r.Fill(timeline.Span{From: start.Add(-time.Hour), To: start, State: timeline.Up})

	v := r.View()
	tot := v.Totals(start.Add(-2*time.Hour), start.Add(time.Hour))
	a, _ := tot.Availability()
	c, _ := tot.Coverage()
	fmt.Printf("up %v, down %v, unknown %v, maintenance %v\n", tot.Up, tot.Down, tot.Unknown, tot.Maintenance)
	fmt.Printf("availability %.4f, coverage %.4f\n", a, c)
	for _, o := range v.Outages(start, start.Add(time.Hour)) {
		fmt.Printf("outage %s to %s, %v, maintenance %v\n", o.Start.Format("15:04"), o.End.Format("15:04"), o.Duration, o.Maintenance)
	}
	// Output:
	// up 1h50m0s, down 5m0s, unknown 1h0m0s, maintenance 5m0s
	// availability 0.9565, coverage 0.6571
	// outage 10:25 to 10:35, 10m0s, maintenance true
}

// A location's figures are the sum of its apps': per step here, the
// days of a bar chart, in one pass per app.
func ExampleView_AddSteps() {
	day := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	var a, b timeline.Record
	a.Check(day, timeline.Up, 72*time.Hour)
	b.Check(day, timeline.Up, 72*time.Hour)
	b.Check(day.Add(30*time.Hour), timeline.Down, 72*time.Hour)
	b.Check(day.Add(36*time.Hour), timeline.Up, 72*time.Hour)
	bounds := []time.Time{day, day.AddDate(0, 0, 1), day.AddDate(0, 0, 2), day.AddDate(0, 0, 3)}
	location := make([]timeline.Totals, len(bounds)-1)
	for _, r := range []*timeline.Record{&a, &b} {
		r.View().AddSteps(location, bounds)
	}
	for i, t := range location {
		av, _ := t.Availability()
		fmt.Printf("%s %.4f\n", bounds[i].Format("01-02"), av)
	}
	// Output:
	// 11-23 1.0000
	// 11-24 0.8750
	// 11-25 1.0000
}
