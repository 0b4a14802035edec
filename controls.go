package availmon

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/availmon/availmon/internal/jsontime"
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

// The filters of GET /api/apps: ?location=, ?status= and any number of
// ?label.KEY=VALUE, all of which must hold. Each filter is a sorted list of
// app indexes taken from an index (locations and labels are fixed by New,
// states are indexed once per snapshot); the answer is their intersection,
// written from each app's JSON encoded once per snapshot. A filtered request
// costs the size of its answer, not of the fleet.

const labelParam = "label."

// appsParams are the query parameters /api/apps accepts, as the error
// message lists them.
var appsParams = "accepted query parameters: location, status, label.KEY (repeatable; all must hold)"

// appFilter is a parsed /api/apps query: the index lists to intersect.
type appFilter struct {
	lists [][]int
}

// parseAppFilter checks the query of /api/apps against what the monitor
// knows: an unknown location, state or label key is an error, a known label
// key with a value no app has is simply an empty answer.
func (m *Monitor) parseAppFilter(rawQuery string, s *snapshot) (*appFilter, error) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, validationError("invalid query string", err.Error(), appsParams)
	}
	f := &appFilter{}
	for _, key := range slices.Sorted(mapKeys(q)) {
		vs := q[key]
		switch {
		case key == "location":
			if len(vs) != 1 {
				return nil, validationError("invalid location", fmt.Sprintf("location is given %d times", len(vs)), appsParams)
			}
			li, ok := s.p.locIndex[vs[0]]
			if !ok {
				return nil, validationError("invalid location", fmt.Sprintf("no location is named %q", vs[0]))
			}
			f.lists = append(f.lists, s.p.locApps[li])
		case key == "status":
			if len(vs) != 1 {
				return nil, validationError("invalid status", fmt.Sprintf("status is given %d times", len(vs)), appsParams)
			}
			st := Status(vs[0])
			if !st.Valid() {
				return nil, validationError("invalid status", fmt.Sprintf("status %q is not supported", vs[0]), "allowed values: up, down, unavailable")
			}
			f.lists = append(f.lists, s.appViews().byStatus[st])
		case strings.HasPrefix(key, labelParam):
			lk := key[len(labelParam):]
			if !s.p.ctl.labelKeys[lk] {
				return nil, validationError("unknown label key", fmt.Sprintf("no app has a label %q", lk), "label keys: "+s.p.ctl.labelKeyList())
			}
			for _, v := range vs {
				if v == "" {
					return nil, validationError("invalid label value", fmt.Sprintf("%s has an empty value", key))
				}
				f.lists = append(f.lists, s.p.ctl.labelIndex[lk][v]) // nil: no app
			}
		default:
			return nil, validationError(fmt.Sprintf("unknown query parameter %q", key), appsParams)
		}
	}
	return f, nil
}

func mapKeys(q url.Values) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range q {
			if !yield(k) {
				return
			}
		}
	}
}

// apply returns the matching app indexes in order.
func (f *appFilter) apply(n int) []int {
	if len(f.lists) == 0 { // a query string with no parameters ("?&")
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	slices.SortFunc(f.lists, func(a, b []int) int { return len(a) - len(b) })
	out := slices.Clone(f.lists[0])
	for _, l := range f.lists[1:] {
		out = intersectSorted(out, l)
	}
	return out
}

// intersectSorted keeps the elements of a that are in b; both are sorted.
// It reuses a's storage.
func intersectSorted(a, b []int) []int {
	out := a[:0]
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			out = append(out, x)
		}
	}
	return out
}

// listAppsFiltered answers /api/apps with a query string.
func (m *Monitor) listAppsFiltered(w http.ResponseWriter, r *http.Request, s *snapshot) {
	f, err := m.parseAppFilter(r.URL.RawQuery, s)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	idx := f.apply(len(s.apps))
	writeJSON(w, http.StatusOK, envelope{
		Data: rawJSON(s.appViews().appsList(s, idx)),
		Meta: listMetaJSON{Count: len(idx), Timestamp: jsontime.Time(s.made), LastUpdate: jsontime.Time(s.at)},
	})
}

// labelIndex maps label key, then value, to the sorted indexes of the apps
// that carry it.
func buildLabelIndex(apps []App) map[string]map[string][]int {
	idx := make(map[string]map[string][]int)
	for i, a := range apps {
		for k, v := range a.Labels {
			if idx[k] == nil {
				idx[k] = make(map[string][]int)
			}
			idx[k][v] = append(idx[k][v], i)
		}
	}
	return idx
}

func (c *controls) labelKeyList() string {
	if len(c.labelKeys) == 0 {
		return "none (no app has labels)"
	}
	return strings.Join(slices.Sorted(func(yield func(string) bool) {
		for k := range c.labelKeys {
			if !yield(k) {
				return
			}
		}
	}), ", ")
}
