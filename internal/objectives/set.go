package objectives

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/availmon/availmon/objective"
)

// Fleet is what the subjects of objectives are resolved against: the
// monitor's apps, locations and services, indexed as its ledger indexes
// them.
type Fleet struct {
	Apps      []string // names, by index
	Locations []string
	Services  []string
	// Match returns the sorted indexes of the apps that carry every label
	// of sel.
	Match func(sel map[string]string) []int
	// Discovery tells that discovery rules may add apps later: an app
	// objective's app need not be there yet.
	Discovery bool
}

// entry is one evaluated objective: a configured one, or one app of a
// per_app selector.
type entry struct {
	def  objective.Objective // its Window's Location set
	name string              // def.Name, or def.Name:app for a per_app selection
	// kind and subject are the subject as the API shows it.
	kind, subject string
	apps          []int // a selection's apps
	labels        []string
}

// Set is a resolved set of objectives. It is immutable.
type Set struct {
	entries    []entry
	byName     map[string]int
	labelNames []string // the union of the objectives' label names, sorted
	unmatched  []string // selector objectives that match no app yet
}

// Compile checks defs against the fleet and resolves them; tz is the zone of
// calendar windows that set none. Every problem is in errs: a duplicate
// name, an invalid definition, a subject missing or naming an app, a
// location or a service the fleet lacks (an app may come later through
// discovery). A selector that matches no app is not an error (discovered
// apps may match it later): Unmatched lists it.
func Compile(defs []objective.Objective, tz *time.Location, f Fleet) (*Set, []error) {
	s := &Set{byName: make(map[string]int)}
	var errs []error
	names := make(map[string]bool)
	for k, d := range defs {
		if err := check(d, f, names); err != nil {
			errs = append(errs, fmt.Errorf("objectives[%d]: %w", k, err))
			continue
		}
		if d.Window.Location == nil {
			d.Window.Location = tz
		}
		s.add(d, f)
	}
	labels := make(map[string]bool)
	for _, e := range s.entries {
		for n := range e.def.Labels {
			labels[n] = true
		}
	}
	s.labelNames = slices.Sorted(maps.Keys(labels))
	for i := range s.entries {
		e := &s.entries[i]
		e.labels = make([]string, len(s.labelNames))
		for j, n := range s.labelNames {
			e.labels[j] = e.def.Labels[n]
		}
	}
	return s, errs
}

// check returns what is wrong with d, or nil.
func check(d objective.Objective, f Fleet, names map[string]bool) error {
	if err := d.Validate(); err != nil {
		return err
	}
	if names[d.Name] {
		return fmt.Errorf("objective %q: the name is taken by another objective", d.Name)
	}
	names[d.Name] = true
	sub := d.Subject
	switch sub.Kind() {
	case "":
		return fmt.Errorf("objective %q: no subject: name one of app, location, service and selector", d.Name)
	case "app":
		if !f.Discovery && !slices.Contains(f.Apps, sub.App) {
			return fmt.Errorf("objective %q: no app is named %q", d.Name, sub.App)
		}
	case "location":
		if !slices.Contains(f.Locations, sub.Location) {
			return fmt.Errorf("objective %q: no location is named %q", d.Name, sub.Location)
		}
	case "service":
		if !slices.Contains(f.Services, sub.Service) {
			return fmt.Errorf("objective %q: no service is named %q", d.Name, sub.Service)
		}
	}
	return nil
}

func (s *Set) add(d objective.Objective, f Fleet) {
	sub := d.Subject
	if sub.Kind() != "selector" {
		s.push(entry{def: d, name: d.Name, kind: sub.Kind(), subject: sub.Name()})
		return
	}
	var apps []int
	if f.Match != nil {
		apps = f.Match(sub.Selector)
	}
	if len(apps) == 0 {
		s.unmatched = append(s.unmatched, d.Name)
	}
	if !sub.PerApp {
		s.push(entry{def: d, name: d.Name, kind: "selector", subject: sub.Name(), apps: apps})
		return
	}
	for _, i := range apps {
		s.push(entry{def: d, name: d.Name + ":" + f.Apps[i], kind: "app", subject: f.Apps[i]})
	}
}

func (s *Set) push(e entry) {
	if _, taken := s.byName[e.name]; taken {
		return // an app named twice in the fleet: the first one counts
	}
	s.byName[e.name] = len(s.entries)
	s.entries = append(s.entries, e)
}

// Len is the number of objectives evaluated: a per_app selector's one per
// app.
func (s *Set) Len() int { return len(s.entries) }

// Unmatched names the selector objectives that match no app.
func (s *Set) Unmatched() []string { return s.unmatched }

// LabelNames are the label names of every objective, sorted: the labels of
// the exported series besides objective.
func (s *Set) LabelNames() []string { return s.labelNames }
