package objectives

import (
	"math"
	"time"

	"github.com/availmon/availmon/objective"
)

// JSON is an objective as GET /api/objectives shows it (docs/api.md).
type JSON struct {
	Name        string            `json:"name"`
	Target      float64           `json:"target"`
	Window      string            `json:"window"`
	Subject     SubjectJSON       `json:"subject"`
	Labels      map[string]string `json:"labels"`
	Attainment  *float64          `json:"attainment"`
	Coverage    float64           `json:"coverage"`
	ErrorBudget BudgetJSON        `json:"error_budget"`
	BurnRates   BurnJSON          `json:"burn_rates"`
	Projected   *float64          `json:"projected_attainment"`
	State       string            `json:"state"`
}

// SubjectJSON is what an objective covers.
type SubjectJSON struct {
	Kind string `json:"kind"` // app, location, service or selector
	Name string `json:"name"`
}

// BudgetJSON is an objective's error budget.
type BudgetJSON struct {
	TotalSeconds     float64  `json:"total_seconds"`
	RemainingSeconds float64  `json:"remaining_seconds"`
	RemainingRatio   *float64 `json:"remaining_ratio"`
}

// BurnJSON are the burn rates over the trailing windows.
type BurnJSON struct {
	M5  *float64 `json:"5m"`
	M30 *float64 `json:"30m"`
	H1  *float64 `json:"1h"`
	H2  *float64 `json:"2h"`
	H6  *float64 `json:"6h"`
	D1  *float64 `json:"1d"`
	D3  *float64 `json:"3d"`
}

// DetailJSON is an objective as GET /api/objectives/{name} shows it.
type DetailJSON struct {
	JSON
	BudgetSeries []PointJSON `json:"budget_series"`
}

// PointJSON is the budget at the end of a day of the window.
type PointJSON struct {
	Time           Time     `json:"time"`
	RemainingRatio *float64 `json:"remaining_ratio"`
	Attainment     *float64 `json:"attainment"`
}

// Time is written as the API writes times: RFC 3339 in UTC, milliseconds.
type Time time.Time

// MarshalJSON writes t as "2026-11-01T00:00:00.000Z".
func (t Time) MarshalJSON() ([]byte, error) {
	b := append([]byte{'"'}, time.Time(t).UTC().AppendFormat(nil, "2006-01-02T15:04:05.000Z07:00")...)
	return append(b, '"'), nil
}

// JSON is objective i as the API shows it.
func (s *Snapshot) JSON(i int) JSON {
	e, st := &s.set.entries[i], &s.st[i]
	labels := e.def.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	out := JSON{
		Name: e.name, Target: e.def.Target, Window: e.def.Window.String(),
		Subject: SubjectJSON{Kind: e.kind, Name: e.subject}, Labels: labels,
		Attainment: ratio(st.Attainment), Coverage: coverage(st),
		ErrorBudget: BudgetJSON{TotalSeconds: st.Budget.Seconds(), RemainingSeconds: st.Remaining.Seconds(),
			RemainingRatio: ratio(st.RemainingFraction)},
		Projected: ratio(st.Projected), State: st.State.String(),
	}
	b := &out.BurnRates
	for k, p := range []**float64{&b.M5, &b.M30, &b.H1, &b.H2, &b.H6, &b.D1, &b.D3} {
		*p = ratio(st.Burn[k].Rate)
	}
	return out
}

// Detail is objective i with its daily budget series.
func (s *Snapshot) Detail(i int) DetailJSON {
	ps := s.Series(i)
	out := DetailJSON{JSON: s.JSON(i), BudgetSeries: make([]PointJSON, len(ps))}
	for j, p := range ps {
		out.BudgetSeries[j] = PointJSON{Time: Time(p.End), Attainment: ratio(p.Attainment)}
		if p.Budget > 0 {
			r := float64(p.Remaining) / float64(p.Budget)
			out.BudgetSeries[j].RemainingRatio = &r
		}
	}
	return out
}

// coverage is the share of the elapsed window's time, maintenance left
// out, that is counted (up or down): the evidence the attainment rests on.
func coverage(st *objective.Status) float64 {
	t := st.Totals
	all := t.Up + t.Down + t.Partial + t.Unknown
	if all <= 0 {
		return 0
	}
	return float64(t.Up+t.Down) / float64(all)
}

func ratio(r objective.Ratio) *float64 {
	if !r.OK || math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
		return nil
	}
	v := r.Value
	return &v
}
