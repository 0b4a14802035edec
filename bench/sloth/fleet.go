package main

import (
	"fmt"
	"strings"
	"time"
)

// fleet is the synthetic apps and objectives every command agrees on.
type fleet struct {
	apps, objectives int
}

// groupSize is the number of apps a selection objective covers.
const groupSize = 100

func (f fleet) app(i int) string      { return fmt.Sprintf("app-%05d", i) }
func (f fleet) group(i int) string    { return fmt.Sprintf("g%03d", i/groupSize) }
func (f fleet) location(i int) string { return fmt.Sprintf("loc-%02d", i%20) }

// objective is one objective: its name and the label matcher of
// availmon_up that selects its apps.
type objective struct {
	name, matcher string
}

// objectiveAt is the i-th objective: one in ten (the last tenth) covers
// the group of 100 apps that starts at a multiple of 100, the others one
// app each, spread over the fleet.
func (f fleet) objectiveAt(i int) objective {
	single := f.objectives * 9 / 10
	if i >= single {
		g := (i - single) * groupSize % f.apps
		return objective{name: fmt.Sprintf("group-%s", f.group(g)), matcher: fmt.Sprintf("group=%q", f.group(g))}
	}
	a := i * f.apps / max(single, 1)
	return objective{name: fmt.Sprintf("obj-%s", f.app(a)), matcher: fmt.Sprintf("app=%q", f.app(a))}
}

// up is app i's state at t: one app in a hundred is down an hour a day
// (03:00 UTC), the rest always up, as in availmon's cycle benchmarks.
func up(i int, t time.Time) float64 {
	if i%100 == 7 && t.UTC().Hour() == 3 {
		return 0
	}
	return 1
}

// downPart is the part of o's apps that is ever down: all of a single
// flapping app, one app in a group's hundred.
func (o objective) downPart() float64 {
	if strings.HasPrefix(o.name, "group-") {
		return 1.0 / groupSize
	}
	var i int
	fmt.Sscanf(o.matcher, `app="app-%d"`, &i)
	if i%100 == 7 {
		return 1
	}
	return 0
}
