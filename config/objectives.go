package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/objective"
)

// fileObjective is one objective under objectives:.
type fileObjective struct {
	Name     string            `yaml:"name"`
	Target   string            `yaml:"target"`
	Window   string            `yaml:"window"`
	App      string            `yaml:"app"`
	Location string            `yaml:"location"`
	Service  string            `yaml:"service"`
	Selector map[string]string `yaml:"selector"`
	PerApp   bool              `yaml:"per_app"`
	Labels   map[string]string `yaml:"labels"`
	Latency  *fileLatency      `yaml:"latency"`
}

type fileLatency struct {
	Threshold string `yaml:"threshold"`
}

// checkObjectives checks the objectives: each definition with package
// objective's rules, and that the app, location or service it covers is in
// the file (with discover: rules an app may be a discovered one). A
// selector that no app of the file matches is a warning: discovered apps
// may match it later.
func (p *parser) checkObjectives(raw []fileObjective, cfg *Config) []objective.Objective {
	var out []objective.Objective
	seen := make(map[string]int)
	for i, f := range raw {
		path := fmt.Sprintf("objectives[%d]", i)
		p.uniqueName("objective", path, i, f.Name, seen)
		o, ok := p.objective(path, f)
		if !ok {
			continue
		}
		p.checkObjectiveSubject(path, f, cfg)
		out = append(out, o)
	}
	return out
}

// objective builds f's definition, reporting what is wrong with it.
func (p *parser) objective(path string, f fileObjective) (objective.Objective, bool) {
	o := objective.Objective{Name: f.Name, Labels: maps.Clone(f.Labels),
		Subject: objective.Subject{App: f.App, Location: f.Location, Service: f.Service,
			Selector: maps.Clone(f.Selector), PerApp: f.PerApp}}
	ok := true
	var err error
	if f.Target == "" {
		p.badAt(path, "objective %q: no target (write it as a percentage such as 99.9%%)", f.Name)
		ok = false
	} else if o.Target, err = objective.ParseTarget(f.Target); err != nil {
		p.badAt(path+".target", "objective %q: %v", f.Name, err)
		ok = false
	}
	if f.Window == "" {
		p.badAt(path, "objective %q: no window (28d, 30d, 90d, month or quarter)", f.Name)
		ok = false
	} else if o.Window, err = objective.ParseWindow(f.Window); err != nil {
		p.badAt(path+".window", "objective %q: %v", f.Name, err)
		ok = false
	}
	if f.Latency != nil {
		p.badAt(path+".latency", "objective %q: latency objectives are not computed yet; only availability objectives are", f.Name)
		ok = false
	}
	if !ok || strings.TrimSpace(f.Name) == "" {
		return o, false
	}
	if err := o.Validate(); err != nil {
		p.badAt(objectiveErrPath(path, err, f), "objective %q: %v", f.Name, err)
		return o, false
	}
	return o, true
}

// objectiveErrPath is where in the objective the problem err lies.
func objectiveErrPath(path string, err error, f fileObjective) string {
	switch {
	case errors.Is(err, objective.ErrName):
		return path + ".name"
	case errors.Is(err, objective.ErrLabel):
		for _, k := range slices.Sorted(maps.Keys(f.Labels)) {
			if strings.Contains(err.Error(), fmt.Sprintf("%q", k)) {
				return path + ".labels." + k
			}
		}
		return path + ".labels"
	case errors.Is(err, objective.ErrSubject) && f.PerApp && f.Selector == nil:
		return path + ".per_app"
	case errors.Is(err, objective.ErrSubject) && f.Selector != nil:
		return path + ".selector"
	}
	return path
}

// checkObjectiveSubject checks that the app, location or service f covers
// is in the file, and warns of a selector that matches no app.
func (p *parser) checkObjectiveSubject(path string, f fileObjective, cfg *Config) {
	switch {
	case f.App == "" && f.Location == "" && f.Service == "" && f.Selector == nil:
		p.badAt(path, "objective %q: no subject: name one of app, location, service and selector", f.Name)
	case f.App != "":
		if len(cfg.Discover) == 0 && !slices.ContainsFunc(cfg.Apps, func(a App) bool { return a.Name == f.App }) {
			p.badAt(path+".app", "objective %q: no app is named %q", f.Name, f.App)
		}
	case f.Location != "":
		if !slices.ContainsFunc(cfg.Locations, func(l availmon.Location) bool { return l.Name == f.Location }) {
			p.badAt(path+".location", "objective %q: no location is named %q", f.Name, f.Location)
		}
	case f.Service != "":
		if !slices.ContainsFunc(cfg.Services, func(s availmon.Service) bool { return s.Name == f.Service }) {
			p.badAt(path+".service", "objective %q: no service is named %q", f.Name, f.Service)
		}
	default:
		if !slices.ContainsFunc(cfg.Apps, func(a App) bool { return matchLabels(a.Labels, f.Selector) }) {
			p.warnAt(path+".selector", "objective %q: no app of the file has the labels %s yet (a discovered app may)",
				f.Name, formatLabels(f.Selector))
		}
	}
}

// warnAt records a warning about the element at path: a problem that does
// not stop the file from being used.
func (p *parser) warnAt(path string, format string, args ...any) {
	p.warnings = append(p.warnings, &Error{File: p.file, Line: p.lines.at(path), Msg: fmt.Sprintf(format, args...)})
}

// ObjectiveLines describe each objective as `availmon -check-config` lists
// them: "checkout: 99.9% over 30d of app checkout".
func (c *Config) ObjectiveLines() []string {
	out := make([]string, len(c.Objectives))
	for i, o := range c.Objectives {
		sub := o.Subject.Kind() + " " + o.Subject.Name()
		if o.Subject.PerApp {
			sub = "each app of " + o.Subject.Name()
		}
		out[i] = fmt.Sprintf("objective %s: %g%% over %s of %s", o.Name, o.Target*100, o.Window, sub)
	}
	return out
}
