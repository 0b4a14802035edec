// Package pastfixture is a synthetic past of a small fleet for the tests
// of the backfill of availability over time: the samples a Prometheus
// holds (written as OpenMetrics, for promtest.Past), the configuration of
// an availmon that watches them, and an independent model of the figures
// the record must show over any range (model.go).
//
// The past reaches back over the most recent change of summer time in
// Europe/Berlin (at least 100 days, at most about 7 months) and ahead of
// now by a little, so that the live checks of a monitor started on it read
// the same samples. The apps have outages across the days, gaps without
// data, an outage over the change of summer time, outages in the last
// hours (for the short windows of burn rates), outages across the
// starts of the last two months on Berlin's clocks, and one maintenance
// window inside one outage.
package pastfixture

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Metric is the gauge the samples are written as, one series per app
// (label app).
const Metric = "past_up"

// App is one app of the fleet.
type App struct {
	Name, Location string
	Service        string // empty: in no service
}

// Window is a one-off maintenance window on one app.
type Window struct {
	App      string
	From, To time.Time
}

// Fixture is the fleet and its samples.
type Fixture struct {
	// Start is the first sample's time, End the last's (ahead of now);
	// every app has a sample every Step between, but where it has a gap.
	Start, End time.Time
	Step       time.Duration
	Apps       []App
	Locations  []string
	Services   []string
	// DSTChange is the most recent change of summer time in Berlin before
	// now, which [Start, now) holds.
	DSTChange time.Time
	// Maintenance lies inside one of the outages of its app.
	Maintenance Window

	values map[string][]int8 // per app, per step: 1 up, 0 down, -1 no sample
}

// Step is the spacing of the samples: Prometheus's default lookback, so
// that every instant between two samples reads the earlier one, and an
// instant after a gap begins reads nothing one step later.
const Step = 5 * time.Minute

// New makes the fixture for a test running at now.
func New(now time.Time) *Fixture {
	f := &Fixture{Step: Step, Locations: []string{"Berlin", "London", "Tokyo"}, Services: []string{"shop"},
		Apps: []App{
			{"checkout", "Berlin", "shop"}, {"search", "Berlin", ""},
			{"billing", "London", "shop"}, {"auth", "London", ""},
			{"cdn", "Tokyo", "shop"},
		}}
	f.DSTChange = LastDSTChange(now)
	start := now.Add(-100 * 24 * time.Hour)
	if d := f.DSTChange.Add(-3 * 24 * time.Hour); d.Before(start) {
		start = d
	}
	f.Start = start.Truncate(24 * time.Hour)
	f.End = now.Truncate(Step).Add(3 * time.Hour)
	f.fill(now)
	return f
}

// LastDSTChange is the most recent instant before now at which
// Europe/Berlin's offset from UTC changed.
func LastDSTChange(now time.Time) time.Time {
	berlin := mustBerlin()
	t := now.Truncate(time.Hour)
	_, off := t.In(berlin).Zone()
	for {
		prev := t.Add(-time.Hour)
		if _, o := prev.In(berlin).Zone(); o != off {
			return t
		}
		t = prev
	}
}

func mustBerlin() *time.Location {
	l, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		panic("pastfixture: " + err.Error())
	}
	return l
}

// fill draws the samples: every app up but in outages of 10 minutes to 3
// hours every few days, and in gaps of an hour to a day now and then;
// checkout down across the change of summer time; billing down for two
// hours four days ago, with a maintenance window of half an hour in it.
// The random outages and gaps stay out of the last day before now, which
// has only the outages of recent (none in the last 18 minutes, so that a
// monitor's live time sees the same as the samples).
func (f *Fixture) fill(now time.Time) {
	n := int(f.End.Sub(f.Start)/f.Step) + 1
	f.values = map[string][]int8{}
	rng := rand.New(rand.NewPCG(26, 100))
	quiet := f.index(now.Add(-24 * time.Hour))
	for _, a := range f.Apps {
		v := make([]int8, n)
		for i := range v {
			v[i] = 1
		}
		for i := rng.IntN(600); i < quiet; i += 300 + rng.IntN(1200) {
			l := 2 + rng.IntN(36)
			val := int8(0)
			if rng.IntN(4) == 0 {
				val, l = -1, 12+rng.IntN(288) // a gap
			}
			for j := i; j < min(i+l, quiet); j++ {
				v[j] = val
			}
		}
		f.values[a.Name] = v
	}
	dst := f.index(f.DSTChange)
	for j := dst - 12; j < dst+6; j++ {
		f.values["checkout"][j] = 0
	}
	down := f.index(now.Add(-4 * 24 * time.Hour).Truncate(time.Hour))
	for j := down; j < down+24; j++ {
		f.values["billing"][j] = 0
	}
	f.Maintenance = Window{App: "billing", From: f.at(down + 6), To: f.at(down + 12)}
	f.monthEdges(now, quiet)
	f.recent(now)
}

// recent puts cdn down for an hour five hours ago and search for 40
// minutes within the last hour (ending 18 minutes before now, ahead of a
// monitor's live checks), so that the short trailing windows of burn
// rates have bad time in them.
func (f *Fixture) recent(now time.Time) {
	for app, r := range map[string][2]time.Duration{"cdn": {5 * time.Hour, 4 * time.Hour}, "search": {58 * time.Minute, 18 * time.Minute}} {
		for j := f.index(now.Add(-r[0])); j < f.index(now.Add(-r[1])); j++ {
			f.values[app][j] = 0
		}
	}
}

// monthEdges puts checkout and auth down across the start of this month
// and the last on Berlin's clocks, from an hour before its midnight to 45
// minutes after: on UTC's clocks all of it lies in the month before, so a
// month counted in the wrong zone shows. Nothing is put in the last day.
func (f *Fixture) monthEdges(now time.Time, quiet int) {
	n := now.In(mustBerlin())
	for _, back := range []int{0, 1} {
		m := time.Date(n.Year(), n.Month()-time.Month(back), 1, 0, 0, 0, 0, n.Location())
		for j := max(f.index(m.Add(-time.Hour)), 0); j < min(f.index(m.Add(45*time.Minute)), quiet); j++ {
			f.values["checkout"][j], f.values["auth"][j] = 0, 0
		}
	}
}

func (f *Fixture) index(t time.Time) int { return int(t.Sub(f.Start) / f.Step) }
func (f *Fixture) at(i int) time.Time    { return f.Start.Add(time.Duration(i) * f.Step) }

// OpenMetrics is the samples, for promtest.Past.
func (f *Fixture) OpenMetrics() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# TYPE %s gauge\n", Metric)
	for _, a := range f.Apps {
		for i, v := range f.values[a.Name] {
			if v >= 0 {
				fmt.Fprintf(&b, "%s{app=%q} %d %d\n", Metric, a.Name, v, f.at(i).Unix())
			}
		}
	}
	b.WriteString("# EOF\n")
	return b.String()
}

// Config is an availmon configuration of the fleet on the Prometheus at
// promURL, checked every interval, with extra YAML appended (storage,
// authentication). The maintenance window is in it when withWindow.
func (f *Fixture) Config(promURL string, interval time.Duration, withWindow bool, extra string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "scrape_interval: %s\nprometheus:\n  - {name: main, url: %s}\nlocations:\n", interval, promURL)
	for i, l := range f.Locations {
		fmt.Fprintf(&b, "  - {name: %s, latitude: %d, longitude: %d}\n", l, 10+i, 10+i)
	}
	b.WriteString("apps:\n")
	for _, a := range f.Apps {
		labels := ""
		if a.Service != "" {
			labels = ", labels: {service: " + a.Service + "}"
		}
		fmt.Fprintf(&b, "  - {name: %s, location: %s, metric: '%s{app=\"%s\"}'%s}\n", a.Name, a.Location, Metric, a.Name, labels)
	}
	b.WriteString("services:\n")
	for _, s := range f.Services {
		fmt.Fprintf(&b, "  - {name: %s, min_up: 2}\n", s)
	}
	if withWindow {
		w := f.Maintenance
		fmt.Fprintf(&b, "maintenance:\n  - {app: %s, from: %s, to: %s}\n", w.App, w.From.Format(time.RFC3339), w.To.Format(time.RFC3339))
	}
	return b.String() + extra
}
