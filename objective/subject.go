package objective

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Subject is what an objective covers: exactly one of an app, a location
// (the sum of its apps' time), a service (its quorum state) or the apps
// matching a label selector. Evaluate does not read it: whoever holds the
// record (availmon's Monitor) turns it into the Source it evaluates.
type Subject struct {
	App, Location, Service string
	// Selector selects the apps with all of these labels: one objective
	// per app when PerApp, else the selection counted as one, like a
	// location.
	Selector map[string]string
	PerApp   bool
}

// Kind is "app", "location", "service" or "selector"; "" for a Subject
// with none set.
func (s Subject) Kind() string {
	switch {
	case s.App != "":
		return "app"
	case s.Location != "":
		return "location"
	case s.Service != "":
		return "service"
	case s.Selector != nil:
		return "selector"
	}
	return ""
}

// Name is the app's, location's or service's name, or the selector
// written as Prometheus writes a label set: {team="payments"}.
func (s Subject) Name() string {
	switch s.Kind() {
	case "app":
		return s.App
	case "location":
		return s.Location
	case "service":
		return s.Service
	case "selector":
		parts := make([]string, 0, len(s.Selector))
		for _, k := range slices.Sorted(maps.Keys(s.Selector)) {
			parts = append(parts, k+"="+strconv.Quote(s.Selector[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return ""
}

// validate returns nil for the zero Subject (an objective evaluated on its
// own) and for one with exactly one of its members set.
func (s Subject) validate() error {
	n := 0
	for _, set := range []bool{s.App != "", s.Location != "", s.Service != "", s.Selector != nil} {
		if set {
			n++
		}
	}
	switch {
	case n > 1:
		return refuse(ErrSubject, "subject", s.Name(), "more than one of app, location, service and selector", subjectForms)
	case s.PerApp && s.Selector == nil:
		return refuse(ErrSubject, "per_app", "true", "per_app goes with a selector", subjectForms)
	case s.Selector != nil && len(s.Selector) == 0:
		return refuse(ErrSubject, "selector", "{}", "an empty selector", subjectForms)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Selector)) {
		if !promLabelName(k) || strings.HasPrefix(k, "__") || s.Selector[k] == "" {
			return refuse(ErrSubject, "selector", k, "not a label name with a value", subjectForms)
		}
	}
	return nil
}
