package objective_test

import (
	"fmt"
	"log"
	"time"

	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/period"
	"github.com/availmon/availmon/timeline"
)

// An objective of 99.9% over 30 days on an app that was down 10 minutes
// last week and has been failing for the last 2 minutes.
func Example() {
	target, err := objective.ParseTarget("99.9%")
	if err != nil {
		log.Fatal(err)
	}
	window, err := objective.ParseWindow("30d")
	if err != nil {
		log.Fatal(err)
	}
	o := objective.Objective{Name: "checkout", Target: target, Window: window, Labels: map[string]string{"team": "payments"}}
	if err := o.Validate(); err != nil {
		log.Fatal(err)
	}

	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	var r timeline.Record // checked every minute, fed by the monitor
	for t := now.Add(-40 * 24 * time.Hour); t.Before(now); t = t.Add(time.Minute) {
		s := timeline.Up
		weekAgo := now.Add(-7 * 24 * time.Hour)
		if !t.Before(weekAgo) && t.Before(weekAgo.Add(10*time.Minute)) || !t.Before(now.Add(-2*time.Minute)) {
			s = timeline.Down
		}
		r.Check(t, s, 2*time.Minute)
	}

	st := o.Evaluate(now, r.View())
	fmt.Printf("attainment %.5f, budget %v, remaining %v (%.0f%%)\n",
		st.Attainment.Value, st.Budget, st.Remaining, 100*st.RemainingFraction.Value)
	for _, b := range st.Burn[:3] {
		fmt.Printf("burn over %v: %.1fx\n", b.Window, b.Rate.Value)
	}
	fmt.Println("state:", st.State)
	// Output:
	// attainment 0.99972, budget 43m12s, remaining 31m12s (72%)
	// burn over 5m0s: 400.0x
	// burn over 30m0s: 66.7x
	// burn over 1h0m0s: 33.3x
	// state: at_risk
}

// A selection of apps is counted as one subject, like a location: the sum
// of their time. Series gives the budget at the end of each day, here of a
// calendar month.
func ExampleObjective_Series() {
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	now := start.Add(3*24*time.Hour + 6*time.Hour)
	var a, b timeline.Record
	a.Check(start, timeline.Up, 4*24*time.Hour)
	b.Check(start, timeline.Up, 4*24*time.Hour)
	b.Check(start.Add(30*time.Hour), timeline.Down, 4*24*time.Hour)
	b.Check(start.Add(30*time.Hour+36*time.Minute), timeline.Up, 4*24*time.Hour)

	o := objective.Objective{Name: "eu-apps", Target: 0.999, Window: objective.Window{Calendar: period.Month}} // in UTC
	for _, p := range o.Series(now, objective.Views{a.View(), b.View()}) {
		fmt.Println(p.End.Format("Jan 2 15:04"), p.Budget, p.Remaining)
	}
	// Output:
	// Nov 2 00:00 1h26m24s 1h26m24s
	// Nov 3 00:00 1h26m24s 50m24s
	// Nov 4 00:00 1h26m24s 50m24s
	// Nov 4 06:00 1h26m24s 50m24s
}
