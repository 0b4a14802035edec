package pastfixture

import "time"

// The model: from the samples alone, what docs/decisions.md ("Availability
// over time") says the record holds. Each sample holds its step; a step
// without a sample is unknown. An app in the maintenance window is in
// maintenance whatever its state. A location is up when none of its apps
// outside maintenance is down and one is up, partial when some are down,
// down when all with a known state are, unknown when none has one; its
// up, down, unknown and maintenance time is the sum of its apps'. The
// service (a quorum of min_up 2 of its locations, one app each) is up
// while two locations are up (an app in maintenance counts as up), down
// when fewer than two are up or unknown, unknown otherwise.

// State of a step.
const (
	Unknown int8 = iota
	Up
	Partial
	Down
)

// Figures over a range, in seconds.
type Figures struct {
	Up, Down, Unknown, Maintenance int64
	// Downtime is an app's or the service's down time, a location's time
	// in an outage (partial or down), outside maintenance.
	Downtime int64
	Outages  []Outage
	// Changes is how many times the state or the maintenance changed
	// inside the range (summed over a location's apps): each may move a
	// figure by a step.
	Changes int
}

// Outage is a maximal run of down (or partial) time that overlaps the
// range, read whole from its start, cut at the range's end.
type Outage struct {
	Start, End  time.Time
	Ongoing     bool
	Duration    time.Duration
	Maintenance bool
}

// series is an entity's state and maintenance per step.
type series struct {
	state []int8
	maint []bool
}

func (f *Fixture) app(name string) series {
	v := f.values[name]
	s := series{state: make([]int8, len(v)), maint: make([]bool, len(v))}
	for i, x := range v {
		switch x {
		case 1:
			s.state[i] = Up
		case 0:
			s.state[i] = Down
		}
		s.maint[i] = f.inWindow(name, i)
	}
	return s
}

func (f *Fixture) inWindow(app string, i int) bool {
	w := f.Maintenance
	t := f.at(i)
	return app == w.App && !t.Before(w.From) && t.Before(w.To)
}

func (f *Fixture) appsOf(loc string) []string {
	var out []string
	for _, a := range f.Apps {
		if a.Location == loc {
			out = append(out, a.Name)
		}
	}
	return out
}

// location is the location's own record: the tally of its apps outside
// maintenance; it is in maintenance when the window covers all its apps.
func (f *Fixture) location(loc string) series {
	apps := f.appsOf(loc)
	n := len(f.values[apps[0]])
	s := series{state: make([]int8, n), maint: make([]bool, n)}
	for i := range n {
		up, down, inMaint := 0, 0, 0
		for _, a := range apps {
			if f.inWindow(a, i) {
				inMaint++
				continue
			}
			switch f.values[a][i] {
			case 1:
				up++
			case 0:
				down++
			}
		}
		s.maint[i] = inMaint == len(apps)
		switch {
		case down == 0 && up > 0:
			s.state[i] = Up
		case down > 0 && up == 0:
			s.state[i] = Down
		case down > 0:
			s.state[i] = Partial
		}
	}
	return s
}

func (f *Fixture) service(name string) series {
	var apps []string
	for _, a := range f.Apps {
		if a.Service == name {
			apps = append(apps, a.Name)
		}
	}
	n := len(f.values[apps[0]])
	s := series{state: make([]int8, n), maint: make([]bool, n)}
	for i := range n {
		up, unknown := 0, 0
		for _, a := range apps {
			switch {
			case f.inWindow(a, i) || f.values[a][i] == 1:
				up++
			case f.values[a][i] < 0:
				unknown++
			}
		}
		switch {
		case up >= 2:
			s.state[i] = Up
		case up+unknown >= 2:
			s.state[i] = Unknown
		default:
			s.state[i] = Down
		}
	}
	return s
}

// AppFigures, LocationFigures and ServiceFigures are the model's figures
// of one entity over [from, to).
func (f *Fixture) AppFigures(name string, from, to time.Time) Figures {
	s := f.app(name)
	return f.figures(s, from, to, func(st int8) bool { return st == Down })
}

func (f *Fixture) ServiceFigures(name string, from, to time.Time) Figures {
	return f.figures(f.service(name), from, to, func(st int8) bool { return st == Down })
}

func (f *Fixture) LocationFigures(loc string, from, to time.Time) Figures {
	own := f.figures(f.location(loc), from, to, func(st int8) bool { return st != Up && st != Unknown })
	out := Figures{Downtime: own.Downtime, Outages: own.Outages}
	for _, a := range f.appsOf(loc) {
		x := f.AppFigures(a, from, to)
		out.Up, out.Down, out.Unknown, out.Maintenance = out.Up+x.Up, out.Down+x.Down, out.Unknown+x.Unknown, out.Maintenance+x.Maintenance
		out.Changes += x.Changes
	}
	out.Changes += own.Changes
	return out
}

// figures counts s over [from, to): the time of each step that lies in
// the range, and its outages (runs of bad steps).
func (f *Fixture) figures(s series, from, to time.Time, bad func(int8) bool) Figures {
	var out Figures
	step := int64(f.Step / time.Second)
	lo, hi := from.Unix(), to.Unix()
	base := f.Start.Unix()
	get := func(i int64) (int8, bool) {
		if i < 0 || i >= int64(len(s.state)) {
			return Unknown, false
		}
		return s.state[i], s.maint[i]
	}
	first, last := (lo-base)/step-1, (hi-base)/step+1
	for i := first; i <= last; i++ {
		a, b := max(lo, base+i*step), min(hi, base+(i+1)*step)
		st, m := get(i)
		if b > a {
			d := b - a
			switch {
			case m:
				out.Maintenance += d
			case st == Up:
				out.Up += d
			case st == Down:
				out.Down += d
			case st == Unknown:
				out.Unknown += d
			}
			if !m && bad(st) {
				out.Downtime += d
			}
		}
		if pst, pm := get(i - 1); i > first && (pst != st || pm != m) && base+i*step > lo && base+i*step < hi {
			out.Changes++
		}
	}
	out.Outages = f.outages(s, lo, hi, bad)
	return out
}

func (f *Fixture) outages(s series, lo, hi int64, bad func(int8) bool) []Outage {
	step := int64(f.Step / time.Second)
	base := f.Start.Unix()
	badAt := func(i int64) bool { return i >= 0 && i < int64(len(s.state)) && bad(s.state[i]) }
	var out []Outage
	for i := int64(0); base+i*step < hi; i++ {
		if !badAt(i) {
			continue
		}
		start, maint := i, false
		for ; badAt(i) && base+i*step < hi; i++ {
			maint = maint || s.maint[i]
		}
		end := min(base+i*step, hi)
		if end <= lo {
			continue
		}
		o := Outage{Start: time.Unix(base+start*step, 0).UTC(), Duration: time.Duration(end-base-start*step) * time.Second, Maintenance: maint}
		if end == hi && badAt((hi-base)/step) {
			o.Ongoing = true
		} else {
			o.End = time.Unix(end, 0).UTC()
		}
		out = append(out, o)
	}
	return out
}
