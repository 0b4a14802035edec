package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/availmon/availmon"
)

// fileMaintenance is one window under maintenance:.
type fileMaintenance struct {
	Name     string            `yaml:"name"`
	App      string            `yaml:"app"`
	Location string            `yaml:"location"`
	Service  string            `yaml:"service"`
	Labels   map[string]string `yaml:"labels"`
	From     string            `yaml:"from"`
	To       string            `yaml:"to"`
	Cron     string            `yaml:"cron"`
	Duration string            `yaml:"duration"`
	TimeZone string            `yaml:"time_zone"`
	Comment  string            `yaml:"comment"`
}

// checkMaintenance checks the windows: their timing with availmon's own
// rules, and that the apps, locations, services and label keys they name
// are in the file. With discover: rules, an app or a label key the file
// does not list may be one a rule finds (a discovered app, or a label of
// its series), so it is not an error.
func (p *parser) checkMaintenance(raw []fileMaintenance, cfg *Config) []availmon.MaintenanceWindow {
	var out []availmon.MaintenanceWindow
	seen := make(map[string]int)
	for i, m := range raw {
		path := fmt.Sprintf("maintenance[%d]", i)
		id := m.Name
		if id == "" {
			id = fmt.Sprintf("config-%d", i+1)
		} else {
			p.uniqueName("maintenance window", path, i, m.Name, seen)
			if strings.HasPrefix(m.Name, "config-") || strings.HasPrefix(m.Name, "api-") {
				p.badAt(path+".name", "maintenance window %q: names config-N and api-N are given by availmon; choose another", m.Name)
			}
		}
		w := availmon.MaintenanceWindow{ID: m.Name, App: m.App, Location: m.Location, Service: m.Service,
			Labels: maps.Clone(m.Labels), Cron: m.Cron, TimeZone: m.TimeZone, Comment: m.Comment}
		ok := true
		for _, f := range []struct {
			key, v string
			into   *time.Time
		}{{"from", m.From, &w.From}, {"to", m.To, &w.To}} {
			if f.v == "" {
				continue
			}
			t, err := time.Parse(time.RFC3339, f.v)
			if err != nil {
				p.badAt(path+"."+f.key, "maintenance window %q: %s %q is not an RFC 3339 time such as 2026-12-01T02:00:00Z", id, f.key, f.v)
				ok = false
			}
			*f.into = t
		}
		if m.Duration != "" {
			if d, good := p.duration(path+".duration", m.Duration); good {
				w.Duration = d
			} else {
				ok = false
			}
		}
		if ok {
			if err := w.Validate(); err != nil {
				for _, msg := range strings.Split(err.Error(), "\n") {
					p.badAt(path, "maintenance window %q: %s", id, msg)
				}
			}
		}
		p.checkMaintenanceTargets(path, id, &m, cfg)
		out = append(out, w)
	}
	return out
}

func (p *parser) checkMaintenanceTargets(path, id string, m *fileMaintenance, cfg *Config) {
	has := func(n int, name func(int) string, want string) bool {
		for i := range n {
			if name(i) == want {
				return true
			}
		}
		return false
	}
	discovery := len(cfg.Discover) > 0
	if m.App != "" && !discovery && !has(len(cfg.Apps), func(i int) string { return cfg.Apps[i].Name }, m.App) {
		p.badAt(path+".app", "maintenance window %q: no app is named %q", id, m.App)
	}
	if m.Location != "" && !has(len(cfg.Locations), func(i int) string { return cfg.Locations[i].Name }, m.Location) {
		p.badAt(path+".location", "maintenance window %q: no location is named %q", id, m.Location)
	}
	if m.Service != "" && !has(len(cfg.Services), func(i int) string { return cfg.Services[i].Name }, m.Service) {
		p.badAt(path+".service", "maintenance window %q: no service is named %q", id, m.Service)
	}
	for _, k := range slices.Sorted(maps.Keys(m.Labels)) {
		if msg := labelProblem(k, m.Labels[k]); msg != "" {
			continue // Validate reported it
		}
		if !discovery && !slices.ContainsFunc(cfg.Apps, func(a App) bool { return hasKey(a.Labels, k) }) {
			p.badAt(path+".labels."+k, "maintenance window %q: no app has a label %q", id, k)
		}
	}
}
