package availmon

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

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
		Meta: listMetaJSON{Count: len(idx), Timestamp: jsonTime(s.made), LastUpdate: jsonTime(s.at)},
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
