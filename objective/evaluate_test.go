package objective_test

import (
	"math"
	"testing"
	"time"

	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/period"
	"github.com/availmon/availmon/timeline"
)

// The instants of the rolling cases: now, and 12:20 for the hourly burns.
var (
	now   = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	now20 = time.Date(2026, 11, 25, 12, 20, 0, 0, time.UTC)
)

// hourly is up from 40 days before until 00:00 UTC three days and a half
// before now20, then bad seconds down at the start of every hour, up the
// rest of it, until now20: a steady burn.
func hourly(bad time.Duration) timeline.View {
	h := from(now20.Add(-40 * day)).upTo(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))
	for h.t.Before(now20.Add(-20 * time.Minute)) {
		h.down(bad).up(time.Hour - bad)
	}
	return h.down(bad).upTo(now20).view()
}

func TestEvaluateRolling(t *testing.T) {
	full := 30 * day // a budget of 0.1% of it is 2592 s
	window := period.Range{Start: now.Add(-full), End: now}
	nan := math.NaN()
	// The rates of 52 s down in the last 52 s: 2% of a 30-day budget.
	fast := []float64{52.0 / 300 / 0.001, 52.0 / 1800 / 0.001, 52.0 / 3600 / 0.001, 52.0 / 7200 / 0.001,
		52.0 / 21600 / 0.001, 52.0 / 86400 / 0.001, 52.0 / 259200 / 0.001}
	tests := []struct {
		name string
		at   time.Time
		src  objective.Source
		o    objective.Objective
		want objective.Status
	}{{
		name: "a fast burn of 2% of the budget in the last hour pages",
		src:  from(now.Add(-40 * day)).upTo(now.Add(-52 * time.Second)).down(52 * time.Second).view(),
		want: objective.Status{Window: window, Totals: timeline.Totals{Up: full - 52*time.Second, Down: 52 * time.Second},
			Attainment: ok((sec(full) - 52) / sec(full)), Budget: 2592 * time.Second, Remaining: 2540 * time.Second,
			RemainingFraction: ok(2540.0 / 2592), Burn: burns(fast...), State: objective.AtRisk},
	}, {
		name: "the same burn over ten minutes ago: the short window says it stopped",
		src: from(now.Add(-40 * day)).upTo(now.Add(-12 * time.Minute)).down(52 * time.Second).
			upTo(now).view(),
		want: objective.Status{Window: window, Totals: timeline.Totals{Up: full - 52*time.Second, Down: 52 * time.Second},
			Attainment: ok((sec(full) - 52) / sec(full)), Budget: 2592 * time.Second, Remaining: 2540 * time.Second,
			RemainingFraction: ok(2540.0 / 2592), Burn: burns(0, fast[1], fast[2], fast[3], fast[4], fast[5], fast[6]),
			State: objective.OK},
	}, {
		name: "the same burn inside maintenance burns nothing",
		src: from(now.Add(-40*day)).maint(now.Add(-10*time.Minute), now.Add(50*time.Minute)).
			upTo(now.Add(-52 * time.Second)).down(52 * time.Second).view(),
		want: objective.Status{Window: window, Totals: timeline.Totals{Up: full - 10*time.Minute, Maintenance: 10 * time.Minute},
			Attainment: ok(1), Budget: time.Duration(0.001 * float64(full-10*time.Minute)),
			Remaining: time.Duration(0.001 * float64(full-10*time.Minute)), RemainingFraction: ok(1),
			Burn: burns(nan, 0, 0, 0, 0, 0, 0), State: objective.OK},
	}, {
		name: "unknown time burns nothing and earns no budget",
		src:  from(now.Add(-40 * day)).upTo(now.Add(-2 * time.Hour)).unknown(2 * time.Hour).view(),
		want: objective.Status{Window: window, Totals: timeline.Totals{Up: full - 2*time.Hour, Unknown: 2 * time.Hour},
			Attainment: ok(1), Budget: 2584800 * time.Millisecond, Remaining: 2584800 * time.Millisecond,
			RemainingFraction: ok(1), Burn: burns(nan, nan, nan, nan, 0, 0, 0), State: objective.OK},
	}, {
		name: "a subject never observed has no figures and no budget",
		src:  timeline.View{},
		want: objective.Status{Window: window, Totals: timeline.Totals{Unknown: full},
			Burn: burns(nan, nan, nan, nan, nan, nan, nan), State: objective.OK},
	}, {
		name: "more down time than the budget is a breach",
		src:  from(now.Add(-40 * day)).upTo(now.Add(-10 * day)).down(50 * time.Minute).upTo(now).view(),
		want: objective.Status{Window: window, Totals: timeline.Totals{Up: full - 50*time.Minute, Down: 50 * time.Minute},
			Attainment: ok((sec(full) - 3000) / sec(full)), Budget: 2592 * time.Second, Remaining: -408 * time.Second,
			RemainingFraction: ok(-408.0 / 2592), Burn: burns(0, 0, 0, 0, 0, 0, 0), State: objective.Breached},
	}, {
		name: "a budget spent exactly still meets the target",
		src:  from(now.Add(-40 * day)).upTo(now.Add(-10 * day)).down(2592 * time.Second).upTo(now).view(),
		want: objective.Status{Window: window, Totals: timeline.Totals{Up: full - 2592*time.Second, Down: 2592 * time.Second},
			Attainment: ok(0.999), Budget: 2592 * time.Second, RemainingFraction: ok(0),
			Burn: burns(0, 0, 0, 0, 0, 0, 0), State: objective.OK},
	}, {
		name: "a breach that left the rolling window is over",
		src:  from(now.Add(-40 * day)).upTo(now.Add(-31 * day)).down(50 * time.Minute).upTo(now).view(),
		want: objective.Status{Window: window, Totals: timeline.Totals{Up: full}, Attainment: ok(1),
			Budget: 2592 * time.Second, Remaining: 2592 * time.Second, RemainingFraction: ok(1),
			Burn: burns(0, 0, 0, 0, 0, 0, 0), State: objective.OK},
	}, {
		name: "a target of 100% has no budget: a second down breaches it, and nothing burns at a rate",
		o:    objective.Objective{Name: "perfect", Target: 1, Window: mustWindow(t, "30d", nil)},
		src:  from(now.Add(-40 * day)).upTo(now.Add(-10 * day)).down(time.Second).upTo(now).view(),
		want: objective.Status{Window: window, Totals: timeline.Totals{Up: full - time.Second, Down: time.Second},
			Attainment: ok((sec(full) - 1) / sec(full)), Remaining: -time.Second,
			Burn: burns(nan, nan, nan, nan, nan, nan, nan), State: objective.Breached},
	}, {
		name: "6x over 6h and 13x over 30m pages",
		at:   now20,
		src:  hourly(24 * time.Second),
		want: objective.Status{Window: period.Range{Start: now20.Add(-full), End: now20},
			Totals:     timeline.Totals{Up: full - 85*24*time.Second, Down: 85 * 24 * time.Second},
			Attainment: ok((sec(full) - 85*24) / sec(full)), Budget: 2592 * time.Second, Remaining: (2592 - 85*24) * time.Second,
			RemainingFraction: ok((2592 - 85*24) / 2592.0),
			Burn:              burns(0, 24.0/1800/0.001, 24.0/3600/0.001, 48.0/7200/0.001, 144.0/21600/0.001, 576.0/86400/0.001, 1728.0/259200/0.001),
			State:             objective.AtRisk},
	}, {
		name: "a slow burn of 3.3x is for a ticket, not a page",
		at:   now20,
		src:  hourly(12 * time.Second),
		want: objective.Status{Window: period.Range{Start: now20.Add(-full), End: now20},
			Totals:     timeline.Totals{Up: full - 85*12*time.Second, Down: 85 * 12 * time.Second},
			Attainment: ok((sec(full) - 85*12) / sec(full)), Budget: 2592 * time.Second, Remaining: (2592 - 85*12) * time.Second,
			RemainingFraction: ok((2592 - 85*12) / 2592.0),
			Burn:              burns(0, 12.0/1800/0.001, 12.0/3600/0.001, 24.0/7200/0.001, 72.0/21600/0.001, 288.0/86400/0.001, 864.0/259200/0.001),
			State:             objective.OK},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, at := tt.o, tt.at
			if o.Name == "" {
				o = objective.Objective{Name: "checkout", Target: 0.999, Window: mustWindow(t, "30d", nil)}
			}
			if at.IsZero() {
				at = now
			}
			if d := diff(tt.want, o.Evaluate(at, tt.src)); d != "" {
				t.Errorf("Evaluate (-want +got):\n%s", d)
			}
		})
	}
}
