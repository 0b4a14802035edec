package config

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/availmon/availmon"
)

// Controls are the operators' controls of the file: flap damping defaults,
// the labels availmon_up exports, services and maintenance windows.
type Controls struct {
	FailThreshold, SuccessThreshold int // 0: availmon's default of 1
	ExportLabels                    []string
	Services                        []availmon.Service
	Maintenance                     []availmon.MaintenanceWindow
}

// controlKeys are the top-level keys of the controls.
type controlKeys struct {
	FailThreshold    *int              `yaml:"fail_threshold"`
	SuccessThreshold *int              `yaml:"success_threshold"`
	ExportLabels     []string          `yaml:"export_labels"`
	Services         []fileService     `yaml:"services"`
	Maintenance      []fileMaintenance `yaml:"maintenance"`
}

// appControlKeys are an app's keys of the controls.
type appControlKeys struct {
	Labels           map[string]string `yaml:"labels"`
	FailThreshold    *int              `yaml:"fail_threshold"`
	SuccessThreshold *int              `yaml:"success_threshold"`
}

type fileService struct {
	Name     string            `yaml:"name"`
	Selector map[string]string `yaml:"selector"`
	// MinUp is a number of locations ("2") or a share of them ("50%").
	MinUp string `yaml:"min_up"`
}

var (
	labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	// The labels availmon's own series carry; export_labels cannot
	// shadow them.
	reservedLabels = []string{"app", "location", "service", "backend", "status", "target"}
)

// checkControls checks the controls' keys, and copies the apps' labels and
// thresholds into cfg.Apps (which holds one entry per raw app).
func (p *parser) checkControls(raw *fileConfig, cfg *Config) {
	c := &cfg.Controls
	c.FailThreshold = p.threshold("fail_threshold", raw.FailThreshold)
	c.SuccessThreshold = p.threshold("success_threshold", raw.SuccessThreshold)
	for i, a := range raw.Apps {
		path := fmt.Sprintf("apps[%d]", i)
		app := &cfg.Apps[i]
		app.FailThreshold = p.threshold(path+".fail_threshold", a.FailThreshold)
		app.SuccessThreshold = p.threshold(path+".success_threshold", a.SuccessThreshold)
		for _, k := range slices.Sorted(maps.Keys(a.Labels)) {
			if msg := labelProblem(k, a.Labels[k]); msg != "" {
				p.badAt(path+".labels."+k, "app %q: %s", a.Name, msg)
			}
		}
		app.Labels = maps.Clone(a.Labels)
	}
	for i, k := range raw.ExportLabels {
		path := fmt.Sprintf("export_labels[%d]", i)
		switch {
		case !labelName.MatchString(k) || strings.HasPrefix(k, "__"):
			p.badAt(path, "export_labels: %q is not a label name (letters, digits and _, not starting with a digit or __)", k)
		case slices.Contains(reservedLabels, k):
			p.badAt(path, "export_labels: %q is a label availmon's series already carry (%s)", k, strings.Join(reservedLabels, ", "))
		case slices.Contains(c.ExportLabels, k):
			p.badAt(path, "export_labels: %q is listed twice", k)
		default:
			c.ExportLabels = append(c.ExportLabels, k)
		}
	}
	c.Services = p.checkServices(raw.Services, cfg.Apps)
	c.Maintenance = p.checkMaintenance(raw.Maintenance, cfg)
}

func (p *parser) threshold(path string, v *int) int {
	if v == nil {
		return 0
	}
	if *v < 1 {
		p.badAt(path, "%s must be at least 1, not %d", path, *v)
		return 0
	}
	return *v
}

// labelProblem says what is wrong with a label, or "".
func labelProblem(k, v string) string {
	switch {
	case !labelName.MatchString(k) || strings.HasPrefix(k, "__"):
		return fmt.Sprintf("label %q: the key is not a label name (letters, digits and _, not starting with a digit or __)", k)
	case v == "":
		return fmt.Sprintf("label %q: the value is empty", k)
	case len(v) > 1024:
		return fmt.Sprintf("label %q: the value is longer than 1024 bytes", k)
	}
	return ""
}

func (p *parser) checkServices(raw []fileService, apps []App) []availmon.Service {
	var out []availmon.Service
	seen := make(map[string]int)
	for i, s := range raw {
		path := fmt.Sprintf("services[%d]", i)
		p.uniqueName("service", path, i, s.Name, seen)
		sv := availmon.Service{Name: s.Name, Selector: maps.Clone(s.Selector)}
		sel := s.Selector
		if len(sel) == 0 {
			sel = map[string]string{"service": s.Name}
		}
		for _, k := range slices.Sorted(maps.Keys(s.Selector)) {
			if msg := labelProblem(k, s.Selector[k]); msg != "" {
				p.badAt(path+".selector."+k, "service %q: selector: %s", s.Name, msg)
			}
		}
		locs := make(map[string]bool)
		for _, a := range apps {
			if matchLabels(a.Labels, sel) {
				locs[a.Location] = true
			}
		}
		if len(locs) == 0 && strings.TrimSpace(s.Name) != "" {
			p.badAt(path, "service %q: no app has the labels %s", s.Name, formatLabels(sel))
		}
		if s.MinUp != "" {
			sv.MinUp, sv.MinUpPercent = p.minUp(path+".min_up", s.Name, s.MinUp, len(locs))
		}
		out = append(out, sv)
	}
	return out
}

// minUp parses a quorum: a whole number of locations or a percentage.
func (p *parser) minUp(path, name, s string, locs int) (int, float64) {
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		if err != nil || math.IsNaN(v) || v <= 0 || v > 100 {
			p.badAt(path, "service %q: min_up %q is not a percentage in (0%%, 100%%]", name, s)
			return 0, 0
		}
		return 0, v
	}
	n, err := strconv.Atoi(s)
	switch {
	case err != nil || n < 1:
		p.badAt(path, "service %q: min_up %q is neither a number of locations (at least 1) nor a percentage such as 50%%", name, s)
	case locs > 0 && n > locs:
		p.badAt(path, "service %q: min_up %d is more than its %d locations", name, n, locs)
	default:
		return n, 0
	}
	return 0, 0
}

func matchLabels(labels, sel map[string]string) bool {
	for k, v := range sel {
		if lv, ok := labels[k]; !ok || lv != v {
			return false
		}
	}
	return true
}

func formatLabels(sel map[string]string) string {
	parts := make([]string, 0, len(sel))
	for _, k := range slices.Sorted(maps.Keys(sel)) {
		parts = append(parts, fmt.Sprintf("%s=%q", k, sel[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// apply sets the options the controls describe; opts.Apps must already
// hold the file's apps, in order.
func (c *Controls) apply(opts *availmon.Options) {
	opts.FailThreshold, opts.SuccessThreshold = c.FailThreshold, c.SuccessThreshold
	opts.ExportLabels = slices.Clone(c.ExportLabels)
	opts.Services = slices.Clone(c.Services)
	opts.Maintenance = slices.Clone(c.Maintenance)
}

// restartNeeded lists the controls that differ from old and that the
// monitor fixes when it is built: the labels availmon_up exports and the
// services. The thresholds, the apps' labels and the maintenance windows
// change on reload.
func (c *Controls) restartNeeded(old *Controls) []string {
	var out []string
	if !slices.Equal(c.ExportLabels, old.ExportLabels) {
		out = append(out, "export_labels")
	}
	if !reflect.DeepEqual(c.Services, old.Services) {
		out = append(out, "services")
	}
	return out
}
