package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/pastfixture"
)

// pastObjective is one objective the fixture's configuration has, and how
// the model counts its subject.
type pastObjective struct {
	name, window, kind, subject string
	target                      float64
}

// pastObjectives are a rolling 30-day objective per app, one on a
// location (London, whose billing has the maintenance window) and one on
// the service, and calendar months on Berlin's clocks (reports.time_zone)
// for an app, that location and the service.
func pastObjectives(f *pastfixture.Fixture) []pastObjective {
	var out []pastObjective
	for _, a := range f.Apps {
		out = append(out, pastObjective{"app-" + a.Name, "30d", "app", a.Name, 0.999})
	}
	return append(out,
		pastObjective{"loc-london", "30d", "location", "London", 0.995},
		pastObjective{"svc-shop", "30d", "service", "shop", 0.99},
		pastObjective{"month-checkout", "month", "app", "checkout", 0.999},
		pastObjective{"month-london", "month", "location", "London", 0.995},
		pastObjective{"month-shop", "month", "service", "shop", 0.99},
	)
}

// objectivesConfig is the YAML of pastObjectives, with calendar windows
// counted in Europe/Berlin.
func objectivesConfig(f *pastfixture.Fixture) string {
	var b strings.Builder
	b.WriteString("reports:\n  time_zone: Europe/Berlin\nobjectives:\n")
	for _, o := range pastObjectives(f) {
		fmt.Fprintf(&b, "  - {name: %s, target: %s%%, window: %s, %s: %s}\n", o.name,
			strconv.FormatFloat(100*o.target, 'f', -1, 64), o.window, o.kind, o.subject)
	}
	return b.String()
}

type wireObjective struct {
	Name        string   `json:"name"`
	Target      float64  `json:"target"`
	Window      string   `json:"window"`
	Attainment  *float64 `json:"attainment"`
	ErrorBudget struct {
		Total     float64 `json:"total_seconds"`
		Remaining float64 `json:"remaining_seconds"`
	} `json:"error_budget"`
	BurnRates map[string]*float64 `json:"burn_rates"`
}

// getWithMeta decodes a GET answer's data and meta.timestamp.
func getWithMeta[T any](t *testing.T, url string) (T, time.Time) {
	t.Helper()
	var out struct {
		Data T
		Meta struct{ Timestamp time.Time }
	}
	code, body := get(t, url)
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", url, code, body)
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("GET %s: %v: %s", url, err, body)
	}
	return out.Data, out.Meta.Timestamp
}

// modelOf is the model's figures of an objective's subject.
func modelOf(f *pastfixture.Fixture, o pastObjective) (fig func(string, time.Time, time.Time) pastfixture.Figures, records int) {
	switch o.kind {
	case "location":
		n := 0
		for _, a := range f.Apps {
			if a.Location == o.subject {
				n++
			}
		}
		return f.LocationFigures, n
	case "service":
		return f.ServiceFigures, 1
	}
	return f.AppFigures, 1
}

// checkObjectives compares every objective's attainment, error budget and
// burn rates at the binary at base with the figures the model gives at
// the instant the answer was made, each to one interval per change in
// the range counted and one at each end.
func checkObjectives(t *testing.T, f *pastfixture.Fixture, base string) {
	t.Helper()
	got, now := getWithMeta[[]wireObjective](t, base+"/api/objectives")
	now = now.Truncate(time.Second)
	byName := map[string]wireObjective{}
	for _, o := range got {
		byName[o.Name] = o
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range pastObjectives(f) {
		g, ok := byName[o.name]
		if !ok {
			t.Errorf("objective %s: not in /api/objectives", o.name)
			continue
		}
		model, records := modelOf(f, o)
		from, rest := now.Add(-30*24*time.Hour), time.Duration(0)
		if o.window == "month" {
			n := now.In(berlin)
			from = time.Date(n.Year(), n.Month(), 1, 0, 0, 0, 0, berlin)
			rest = time.Duration(records) * from.AddDate(0, 1, 0).Sub(now)
		}
		checkObjective(t, o, g, model(o.subject, from, now), rest)
		for w, d := range map[string]time.Duration{"1h": time.Hour, "6h": 6 * time.Hour, "1d": 24 * time.Hour, "3d": 72 * time.Hour} {
			checkBurn(t, o, w, g.BurnRates[w], model(o.subject, now.Add(-d), now))
		}
	}
}

// checkObjective compares attainment and error budget: the budget is
// (1 - target) times the counted time (and a calendar window's rest),
// the remaining that less the down time.
func checkObjective(t *testing.T, o pastObjective, g wireObjective, m pastfixture.Figures, rest time.Duration) {
	t.Helper()
	share := 1 - o.target
	tol := float64(int64(m.Changes+2) * int64(pastInterval/time.Second))
	counted := float64(m.Up + m.Down)
	// Too little counted time (a month just begun) leaves the attainment
	// to the ends' tolerance; the budget is compared still.
	if wantA := float64(m.Up) / counted; counted > 2*tol &&
		(g.Attainment == nil || math.Abs(*g.Attainment-wantA) > 2*tol/counted+1e-9) {
		t.Errorf("objective %s: attainment %v, the model %.6f", o.name, deref(g.Attainment), wantA)
	}
	total := share * (counted + rest.Seconds())
	if d := g.ErrorBudget.Total - total; math.Abs(d) > 2*share*tol+1e-6 {
		t.Errorf("objective %s: budget %.1f s, the model %.1f s", o.name, g.ErrorBudget.Total, total)
	}
	remaining := total - float64(m.Down)
	if d := g.ErrorBudget.Remaining - remaining; math.Abs(d) > tol+2*share*tol+1e-6 {
		t.Errorf("objective %s: remaining %.1f s, the model %.1f s (down %d s, counted %.0f s)",
			o.name, g.ErrorBudget.Remaining, remaining, m.Down, counted)
	}
}

// checkBurn compares a burn rate over a trailing window: its down share
// over (1 - target), missing when nothing was counted.
func checkBurn(t *testing.T, o pastObjective, w string, got *float64, m pastfixture.Figures) {
	t.Helper()
	share := 1 - o.target
	tol := float64(int64(m.Changes+2) * int64(pastInterval/time.Second))
	counted := float64(m.Up + m.Down)
	if counted <= 2*tol {
		if counted == 0 && got != nil {
			t.Errorf("objective %s: burn over %s %v, the model counts nothing", o.name, w, *got)
		}
		return
	}
	want := float64(m.Down) / counted / share
	if got == nil || math.Abs(*got-want) > 3*tol/(counted-2*tol)/share+1e-9 {
		t.Errorf("objective %s: burn over %s %v, the model %.4f (down %d s of %.0f s)", o.name, w, deref(got), want, m.Down, counted)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

type wireReportRow struct {
	wireFigures
	Kind string `json:"kind"`
}

type wireReport struct {
	From  time.Time       `json:"from"`
	To    time.Time       `json:"to"`
	Items []wireReportRow `json:"items"`
}

// checkReports compares the report of the current and the previous month,
// on UTC's and Berlin's clocks, row by row with /api/availability's
// answer for the same period by app, location and service, both read of
// one snapshot (the same range).
func checkReports(t *testing.T, base string) {
	t.Helper()
	for _, tz := range []string{"UTC", "Europe/Berlin"} {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			t.Fatal(err)
		}
		n := time.Now().In(loc)
		cur := time.Date(n.Year(), n.Month(), 1, 0, 0, 0, 0, loc)
		for _, m := range []time.Time{cur, cur.AddDate(0, -1, 0)} {
			checkReport(t, base, m.Format("2006-01"), tz)
		}
	}
}

func checkReport(t *testing.T, base, period, tz string) {
	t.Helper()
	what := "report " + period + " tz=" + tz
	var rep wireReport
	avail := map[string]wireAvailability{}
	waitFor(t, what+" and /api/availability of one range", time.Minute, func() bool {
		rep = getJSON[wireReport](t, base+"/api/reports/"+period+"?tz="+tz)
		for _, by := range []string{"app", "location", "service"} {
			avail[by] = getJSON[wireAvailability](t, base+"/api/availability?period="+period+"&tz="+tz+"&by="+by)
			if !avail[by].From.Equal(rep.From) || !avail[by].To.Equal(rep.To) {
				return false
			}
		}
		return true
	})
	rows := 0
	for by, a := range avail {
		for _, want := range a.Items {
			i := -1
			for j, r := range rep.Items {
				if r.Kind == by && r.Name == want.Name {
					i = j
				}
			}
			if i < 0 {
				t.Errorf("%s: no row for %s %s", what, by, want.Name)
				continue
			}
			rows++
			if got := rep.Items[i].wireFigures; !sameFigures(got, want) {
				t.Errorf("%s: %s %s is\n %s\n/api/availability\n %s", what, by, want.Name, figuresText(got), figuresText(want))
			}
		}
	}
	if rows == 0 || rows != len(rep.Items) {
		t.Errorf("%s: %d rows, /api/availability has %d", what, len(rep.Items), rows)
	}
}

func sameFigures(a, b wireFigures) bool {
	eq := func(x, y *float64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.Up == b.Up && a.Down == b.Down && a.Unknown == b.Unknown && a.Maintenance == b.Maintenance &&
		a.Downtime == b.Downtime && a.Outages == b.Outages && eq(a.Availability, b.Availability) && eq(a.Coverage, b.Coverage)
}

func figuresText(f wireFigures) string {
	return fmt.Sprintf("up %d down %d unknown %d maintenance %d downtime %d outages %d availability %v coverage %v",
		f.Up, f.Down, f.Unknown, f.Maintenance, f.Downtime, f.Outages, deref(f.Availability), deref(f.Coverage))
}
