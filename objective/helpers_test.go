package objective_test

import (
	"math"
	"testing"
	"time"

	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/period"
	"github.com/availmon/availmon/timeline"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const day = 24 * time.Hour

// history builds a record from consecutive stretches of state, as checks
// that each hold exactly their stretch.
type history struct {
	r timeline.Record
	t time.Time
}

func from(t time.Time) *history { return &history{t: t} }

func (h *history) add(s timeline.State, d time.Duration) *history {
	h.r.Check(h.t, s, d)
	h.t = h.t.Add(d)
	return h
}

func (h *history) up(d time.Duration) *history      { return h.add(timeline.Up, d) }
func (h *history) down(d time.Duration) *history    { return h.add(timeline.Down, d) }
func (h *history) unknown(d time.Duration) *history { return h.add(timeline.Unknown, d) }

// upTo adds up time until t.
func (h *history) upTo(t time.Time) *history { return h.up(t.Sub(h.t)) }

func (h *history) maint(from, to time.Time) *history {
	h.r.SetMaintenance(from, to, true)
	return h
}

func (h *history) view() timeline.View { return h.r.View() }

// ok is a figure that is there; missing is one that is not.
func ok(v float64) objective.Ratio { return objective.Ratio{Value: v, OK: true} }

var missing = objective.Ratio{}

// burns returns the burn rates over 5m, 30m, 1h, 2h, 6h, 1d and 3d; NaN
// stands for a missing one.
func burns(rates ...float64) [objective.NumBurn]objective.Burn {
	ws := [...]time.Duration{5 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 6 * time.Hour, day, 3 * day}
	if len(rates) != len(ws) {
		panic("burns needs 7 rates")
	}
	var b [objective.NumBurn]objective.Burn
	for i, w := range ws {
		b[i].Window = w
		if !math.IsNaN(rates[i]) {
			b[i].Rate = ok(rates[i])
		}
	}
	return b
}

// sec is n seconds as a float, for figures computed by hand.
func sec(d time.Duration) float64 { return d.Seconds() }

func mustTarget(t testing.TB, s string) float64 {
	t.Helper()
	f, err := objective.ParseTarget(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func mustWindow(t testing.TB, s string, loc *time.Location) objective.Window {
	t.Helper()
	w, err := objective.ParseWindow(s)
	if err != nil {
		t.Fatal(err)
	}
	w.Location = loc
	return w
}

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := period.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// approx compares figures computed in another order to a relative 1e-12.
var approx = cmpopts.EquateApprox(1e-12, 0)

func diff(want, got any) string { return cmp.Diff(want, got, approx) }
