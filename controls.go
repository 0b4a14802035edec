package availmon

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"unicode/utf8"
)

// controlOptions are the Options of the operators' controls, which the
// plans of discovered apps are resolved with. New fixes the export labels
// (they shape the series' labels) and the services; Reconfigure replaces
// the thresholds, under cycleMu.
type controlOptions struct {
	failThreshold, successThreshold int
	exportLabels                    []string
	services                        []Service
}

func controlOptionsOf(o *Options) controlOptions {
	return controlOptions{failThreshold: o.FailThreshold, successThreshold: o.SuccessThreshold,
		exportLabels: slices.Clone(o.ExportLabels), services: slices.Clone(o.Services)}
}

// into sets the control fields of o to c's.
func (c *controlOptions) into(o *Options) {
	o.FailThreshold, o.SuccessThreshold = c.failThreshold, c.successThreshold
	c.fixedInto(o)
}

// fixedInto sets the fields of o that New fixed; it reads none that
// Reconfigure changes, so it needs no lock.
func (c *controlOptions) fixedInto(o *Options) {
	o.ExportLabels, o.Services = c.exportLabels, c.services
}

// controls are the operators' settings that shape what is shown and
// exported rather than what is checked: flap damping, labels, services and
// maintenance windows, resolved against one plan's apps.
type controls struct {
	th           []thresholds    // per app
	labelKeys    map[string]bool // every key some app carries
	labelIndex   map[string]map[string][]int
	appLabels    []map[string]string // per app
	exportLabels []string            // keys availmon_up carries, in order
	services     []service           // compiled Options.Services
	serviceIndex map[string]int      // by name
}

// labelName is a Prometheus label name: labels are exported as such, so
// they follow its rules everywhere.
var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// reservedLabels are the labels availmon's own series carry.
var reservedLabels = []string{"app", "location", "service", "backend", "status", "target"}

// newControls checks and compiles the controls of o for the plan's apps.
func newControls(p *plan, o *Options) (controls, []error) {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	c := controls{th: appThresholds(p.apps, o), labelKeys: make(map[string]bool)}
	if o.FailThreshold < 0 || o.SuccessThreshold < 0 {
		bad("FailThreshold and SuccessThreshold must not be negative")
	}
	for _, a := range p.apps {
		if a.FailThreshold < 0 || a.SuccessThreshold < 0 {
			bad("app %q: FailThreshold and SuccessThreshold must not be negative", a.Name)
		}
		for k, v := range a.Labels {
			if err := checkLabel(k, v); err != nil {
				bad("app %q: %w", a.Name, err)
			}
			c.labelKeys[k] = true
		}
	}
	for _, k := range o.ExportLabels {
		switch {
		case !labelName.MatchString(k) || len(k) > 2 && k[:2] == "__":
			bad("ExportLabels: %q is not a label name", k)
		case slices.Contains(reservedLabels, k):
			bad("ExportLabels: %q is a label availmon's series already carry", k)
		case slices.Contains(c.exportLabels, k):
			bad("ExportLabels: %q is listed twice", k)
		default:
			c.exportLabels = append(c.exportLabels, k)
		}
	}
	c.labelIndex = buildLabelIndex(p.apps)
	c.appLabels = make([]map[string]string, len(p.apps))
	for i, a := range p.apps {
		// Our own copy: the caller's maps may change after New.
		p.apps[i].Labels = maps.Clone(a.Labels)
		c.appLabels[i] = p.apps[i].Labels
	}
	var serr []error
	c.services, c.serviceIndex, serr = compileServices(p, o.Services)
	errs = append(errs, serr...)
	return c, errs
}

// checkLabel checks one app label.
func checkLabel(k, v string) error {
	switch {
	case !labelName.MatchString(k) || len(k) >= 2 && k[:2] == "__":
		return fmt.Errorf("label %q: the key is not a label name (letters, digits and _, not starting with a digit or __)", k)
	case v == "":
		return fmt.Errorf("label %q: the value is empty", k)
	case len(v) > 1024:
		return fmt.Errorf("label %q: the value is longer than 1024 bytes", k)
	case !utf8.ValidString(v):
		return fmt.Errorf("label %q: the value is not valid UTF-8 (Prometheus refuses it as a label value)", k)
	}
	return nil
}

// exportedLabels are app i's values of the exported label keys; nil when
// none are exported.
func (c *controls) exportedLabels(i int) []string {
	if len(c.exportLabels) == 0 {
		return nil
	}
	out := make([]string, len(c.exportLabels))
	for j, k := range c.exportLabels {
		out[j] = c.appLabels[i][k]
	}
	return out
}
