package objective_test

import (
	"testing"
	"time"

	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/period"
	"github.com/availmon/availmon/timeline"
)

// berlinOctober is a month of Berlin's clocks that leaves summer time on
// the 25th: 1 October 00:00 CEST (22:00 UTC the day before) to 1 November
// 00:00 CET (23:00 UTC), 745 hours. Now is 26 October 12:00 CET: 613 hours
// elapsed, 132 to come. The app was down 30 minutes on the 10th, unobserved
// 6 hours on the 20th, and has a 2-hour maintenance window set ahead on the
// 28th.
func berlinOctober(t *testing.T) (objective.Objective, time.Time, timeline.View) {
	loc := mustZone(t, "Europe/Berlin")
	o := objective.Objective{Name: "checkout-berlin", Target: mustTarget(t, "99.5%"), Window: mustWindow(t, "month", loc)}
	at := time.Date(2026, 10, 26, 12, 0, 0, 0, loc)
	v := from(time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)).
		maint(time.Date(2026, 10, 28, 1, 0, 0, 0, time.UTC), time.Date(2026, 10, 28, 3, 0, 0, 0, time.UTC)).
		upTo(time.Date(2026, 10, 10, 10, 0, 0, 0, time.UTC)).down(30 * time.Minute).
		upTo(time.Date(2026, 10, 20, 0, 0, 0, 0, time.UTC)).unknown(6 * time.Hour).
		upTo(at).view()
	return o, at, v
}

func TestEvaluateCalendar(t *testing.T) {
	bo, bnow, bview := berlinOctober(t)
	nov := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, time.UTC) }
	month := mustWindow(t, "month", nil)
	zero := burns(0, 0, 0, 0, 0, 0, 0)
	tests := []struct {
		name string
		o    objective.Objective
		at   time.Time
		src  objective.Source
		want objective.Status
	}{{
		name: "a month in Europe/Berlin across the end of summer time",
		o:    bo, at: bnow, src: bview,
		// Counted: 613h - 6h unknown = 607h so far, 132h - 2h maintenance
		// to come: a budget of 0.5% of 737h.
		want: objective.Status{
			Window:     period.Range{Start: time.Date(2026, 9, 30, 22, 0, 0, 0, time.UTC), End: time.Date(2026, 10, 31, 23, 0, 0, 0, time.UTC)},
			Totals:     timeline.Totals{Up: 606*time.Hour + 30*time.Minute, Down: 30 * time.Minute, Unknown: 6 * time.Hour},
			Attainment: ok(606.5 / 607), Budget: 13266 * time.Second, Remaining: (13266 - 1800) * time.Second,
			RemainingFraction: ok((13266 - 1800) / 13266.0), Burn: zero,
			Projected: ok((606.5 + 130) / 737), State: objective.OK},
	}, {
		name: "a month spent past its budget cannot recover",
		o:    objective.Objective{Name: "m", Target: 0.999, Window: month}, at: nov(10, 0),
		src: from(nov(1, 0).AddDate(0, -1, 0)).upTo(nov(5, 10)).down(45 * time.Minute).upTo(nov(10, 0)).view(),
		// 720h in November: 2592 s of budget, 2700 s spent.
		want: objective.Status{Window: period.Range{Start: nov(1, 0), End: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
			Totals:     timeline.Totals{Up: 216*time.Hour - 45*time.Minute, Down: 45 * time.Minute},
			Attainment: ok((216*3600 - 2700) / (216 * 3600.0)), Budget: 2592 * time.Second, Remaining: -108 * time.Second,
			RemainingFraction: ok(-108 / 2592.0), Burn: zero,
			Projected: ok((216*3600 - 2700 + 504*3600*(1-2700/604800.0)) / (720 * 3600)), State: objective.Breached},
	}, {
		name: "the projection follows the last 7 days",
		o:    objective.Objective{Name: "m", Target: 0.99, Window: month}, at: nov(16, 0),
		src: from(nov(1, 0).AddDate(0, -1, 0)).upTo(nov(3, 10)).down(2 * time.Hour).
			upTo(nov(12, 10)).down(time.Hour).upTo(nov(16, 0)).view(),
		// 1% of 720h is 7.2h of budget, 3h spent; the last 7 days were up
		// 167 of 168 hours.
		want: objective.Status{Window: period.Range{Start: nov(1, 0), End: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
			Totals:     timeline.Totals{Up: 357 * time.Hour, Down: 3 * time.Hour},
			Attainment: ok(357.0 / 360), Budget: 25920 * time.Second, Remaining: 15120 * time.Second,
			RemainingFraction: ok(4.2 / 7.2), Burn: zero, Projected: ok((357 + 360*167.0/168) / 720), State: objective.OK},
	}, {
		name: "burn windows reach back before the month began",
		o:    objective.Objective{Name: "m", Target: 0.999, Window: month}, at: time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC),
		src: from(nov(1, 0)).upTo(nov(30, 20)).down(time.Hour).upTo(time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)).view(),
		want: objective.Status{Window: period.Range{Start: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
			Totals: timeline.Totals{Up: 6 * time.Hour}, Attainment: ok(1),
			Budget: time.Duration(0.001 * float64(31*day)), Remaining: time.Duration(0.001 * float64(31*day)), RemainingFraction: ok(1),
			Burn: burns(0, 0, 0, 0, 0, 3600.0/86400/0.001, 3600.0/259200/0.001),
			// The last 7 days hold the outage of 30 November.
			Projected: ok((6 + 738*167.0/168) / 744), State: objective.OK},
	}, {
		name: "a quarter",
		o:    objective.Objective{Name: "q", Target: 0.999, Window: mustWindow(t, "quarter", nil)}, at: nov(25, 12),
		src: from(nov(1, 0).AddDate(0, -2, 0)).upTo(nov(25, 11)).down(time.Minute).upTo(nov(25, 12)).view(),
		// Q4: 92 days; 55 days 12 hours elapsed, 36 days 12 hours to come.
		want: objective.Status{Window: period.Range{Start: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
			Totals:     timeline.Totals{Up: 55*day + 12*time.Hour - time.Minute, Down: time.Minute},
			Attainment: ok(1 - 60/sec(55*day+12*time.Hour)), Budget: time.Duration(0.001 * float64(92*day)),
			Remaining: time.Duration(0.001*float64(92*day)) - time.Minute, RemainingFraction: ok(1 - 60/(0.001*sec(92*day))),
			Burn:      burns(0, 0, 60/3600.0/0.001, 60/7200.0/0.001, 60/21600.0/0.001, 60/86400.0/0.001, 60/259200.0/0.001),
			Projected: ok((sec(55*day+12*time.Hour) - 60 + (1-60/sec(7*day))*sec(36*day+12*time.Hour)) / sec(92*day)),
			State:     objective.OK},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := diff(tt.want, tt.o.Evaluate(tt.at, tt.src)); d != "" {
				t.Errorf("Evaluate (-want +got):\n%s", d)
			}
		})
	}
}
