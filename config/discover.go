package config

import (
	"fmt"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/prometheus/common/model"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/promql"
)

// fileDiscover is one rule of the discover: section.
type fileDiscover struct {
	Name          string `yaml:"name"`
	Prometheus    string `yaml:"prometheus"`
	Query         string `yaml:"query"`
	App           string `yaml:"app"`
	LocationLabel string `yaml:"location_label"`
	ForgetAfter   string `yaml:"forget_after"`
	MaxApps       *int   `yaml:"max_apps"`
}

// checkDiscover checks the discovery rules against the backends, locations
// and apps already checked, so that each problem is reported on its line;
// the library checks them again when the monitor is built.
func (p *parser) checkDiscover(raw []fileDiscover, cfg *Config) []availmon.DiscoveryRule {
	backends := make(map[string]bool, len(cfg.Prometheus))
	for _, b := range cfg.Prometheus {
		backends[b.Name] = true
	}
	apps := make(map[string]bool, len(cfg.Apps))
	for _, a := range cfg.Apps {
		apps[a.Name] = true
	}
	var out []availmon.DiscoveryRule
	seen := make(map[string]int)
	constant := make(map[string]string) // app name -> rule, for templates without actions
	for i, d := range raw {
		path := fmt.Sprintf("discover[%d]", i)
		p.uniqueName("discovery rule", path, i, d.Name, seen)
		r := availmon.DiscoveryRule{Name: d.Name, Query: d.Query, AppName: d.App, LocationLabel: d.LocationLabel,
			ForgetAfter: availmon.DefaultForgetAfter, MaxApps: availmon.DefaultMaxApps}
		switch {
		case d.Prometheus != "":
			if !backends[d.Prometheus] {
				p.badAt(path+".prometheus", "discovery rule %q: unknown prometheus backend %q (backends: %s)", d.Name, d.Prometheus, listNames(backends))
			}
			r.Backend = d.Prometheus
		case len(cfg.Prometheus) == 1:
			r.Backend = cfg.Prometheus[0].Name
		default:
			p.badAt(path, "discovery rule %q: name its backend with prometheus: (there are %d)", d.Name, len(cfg.Prometheus))
		}
		if strings.TrimSpace(d.Query) == "" {
			p.badAt(path, "discovery rule %q has no query", d.Name)
		} else if _, err := promql.Parse(d.Query); err != nil {
			p.badAt(path+".query", "discovery rule %q: query: %v", d.Name, err)
		}
		if !model.UTF8Validation.IsValidLabelName(d.LocationLabel) {
			p.badAt(path, "discovery rule %q: location_label %q is not a label name", d.Name, d.LocationLabel)
		}
		if d.ForgetAfter != "" {
			if v, ok := p.duration(path+".forget_after", d.ForgetAfter); ok {
				if v <= 0 {
					p.badAt(path+".forget_after", "discovery rule %q: forget_after must be more than 0", d.Name)
				}
				r.ForgetAfter = v
			}
		}
		if d.MaxApps != nil {
			if *d.MaxApps < 1 {
				p.badAt(path+".max_apps", "discovery rule %q: max_apps must be at least 1, not %d", d.Name, *d.MaxApps)
			}
			r.MaxApps = *d.MaxApps
		}
		p.checkAppTemplate(path, d, apps, constant)
		for j, o := range out {
			if o.Query == r.Query && o.AppName == r.AppName && o.Backend == r.Backend {
				p.badAt(path, "discovery rules %q and %q make the same apps from the same query (first on line %d)",
					o.Name, r.Name, p.lines.at(fmt.Sprintf("discover[%d]", j)))
			}
		}
		out = append(out, r)
	}
	return out
}

// checkAppTemplate parses the app name template; one without actions gives
// every app the same name, so its clash with a listed app or another such
// rule is certain and reported now.
func (p *parser) checkAppTemplate(path string, d fileDiscover, apps map[string]bool, constant map[string]string) {
	if strings.TrimSpace(d.App) == "" {
		p.badAt(path, "discovery rule %q has no app: template (such as '{{ .service }}-{{ .region }}')", d.Name)
		return
	}
	t, err := template.New(d.Name).Parse(d.App)
	if err != nil {
		p.badAt(path+".app", "discovery rule %q: app: %v", d.Name, err)
		return
	}
	for _, n := range t.Tree.Root.Nodes {
		if _, ok := n.(*parse.TextNode); !ok {
			return
		}
	}
	switch other, dup := constant[d.App]; {
	case apps[d.App]:
		p.badAt(path+".app", "discovery rule %q: every app it makes is named %q, which is a listed app", d.Name, d.App)
	case dup:
		p.badAt(path+".app", "discovery rule %q: every app it makes is named %q, as are those of rule %q", d.Name, d.App, other)
	}
	constant[d.App] = d.Name
}

// checkMatch reports a location match value that two locations list.
func (p *parser) checkMatch(raw []fileLocation) {
	owner := map[string]string{}
	for i, l := range raw {
		for j, v := range l.Match {
			if o, dup := owner[v]; dup && o != l.Name {
				p.badAt(fmt.Sprintf("locations[%d].match[%d]", i, j), "location %q: match value %q is also matched by location %q", l.Name, v, o)
				continue
			}
			owner[v] = l.Name
		}
	}
}
