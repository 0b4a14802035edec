package objective_test

import (
	"testing"
	"time"

	"github.com/availmon/availmon/objective"
)

func TestSeries(t *testing.T) {
	bo, bnow, bview := berlinOctober(t)
	loc := bo.Window.Location
	// Berlin's October: a point at every local midnight from the 2nd to the
	// 26th (the day before, the 25th, lasts 25 hours) and one at now. The
	// budget is 0.5% of 745h less 2h of maintenance ahead less the unknown
	// time so far (6h on the 20th); 30 minutes were spent on the 10th.
	var berlin []objective.Point
	for d := 2; d <= 26; d++ {
		p := objective.Point{End: time.Date(2026, 10, d, 0, 0, 0, 0, loc), Budget: 13374 * time.Second, Remaining: 13374 * time.Second}
		if d > 20 {
			p.Budget, p.Remaining = 13266*time.Second, 13266*time.Second
		}
		if d > 10 {
			p.Remaining -= 30 * time.Minute
		}
		berlin = append(berlin, p)
	}
	berlin = append(berlin, objective.Point{End: bnow, Budget: 13266 * time.Second, Remaining: (13266 - 1800) * time.Second})
	if got := berlin[24].End.Sub(berlin[23].End); got != 25*time.Hour {
		t.Fatalf("the day Berlin leaves summer time lasts %v, want 25h", got)
	}

	nov := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, time.UTC) }
	two := objective.Objective{Name: "two", Target: 0.99, Window: mustWindow(t, "2d", nil)}
	twoView := from(nov(20, 0)).upTo(nov(22, 10)).down(time.Hour).upTo(nov(24, 0)).unknown(12 * time.Hour).upTo(nov(25, 12)).view()
	month := objective.Objective{Name: "m", Target: 0.999, Window: mustWindow(t, "month", nil)}
	tests := []struct {
		name string
		o    objective.Objective
		at   time.Time
		src  objective.Source
		want []objective.Point
	}{{
		name: "a calendar month in Europe/Berlin",
		o:    bo, at: bnow, src: bview, want: berlin,
	}, {
		name: "a rolling window: each day's own window, its budget back once the outage leaves it",
		o:    two, at: nov(25, 12), src: twoView,
		// 1% of the counted time: 48h, then 36h (12h unknown).
		want: []objective.Point{
			{End: nov(24, 0), Budget: 1728 * time.Second, Remaining: (1728 - 3600) * time.Second},
			{End: nov(25, 0), Budget: 1296 * time.Second, Remaining: 1296 * time.Second},
			{End: nov(25, 12), Budget: 1296 * time.Second, Remaining: 1296 * time.Second},
		},
	}, {
		name: "the first instant of a month is one point, its whole budget ahead",
		o:    month, at: nov(1, 0), src: twoView,
		want: []objective.Point{{End: nov(1, 0), Budget: 2592 * time.Second, Remaining: 2592 * time.Second}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The attainment of each point is Evaluate's, which
			// TestProperty checks against the model.
			got := tt.o.Series(tt.at, tt.src)
			for i := range got {
				got[i].Attainment = objective.Ratio{}
			}
			if d := diff(tt.want, got); d != "" {
				t.Errorf("Series (-want +got):\n%s", d)
			}
		})
	}
}
