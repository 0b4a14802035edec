package availmon

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// readRoute is a GET endpoint under /api with the query parameters it
// accepts. Handlers parse their own parameters; onlyParams refuses the
// others, so a typo (?perod=7d) is an error rather than a silent default.
type readRoute struct {
	pattern string
	params  []string // nil: none; "label.*" accepts every name starting "label."
	handler http.HandlerFunc
}

// readRoutes lists the read endpoints and what each accepts. A handler that
// learns a new parameter adds it here.
func (m *Monitor) readRoutes() []readRoute {
	return []readRoute{
		{"/api/apps", []string{"location", "status", "label.*"}, m.listApps},
		{"/api/apps/{name}", nil, m.getApp},
		{"/api/locations", nil, m.listLocations},
		{"/api/locations/{name}", nil, m.getLocation},
		{"/api/config", nil, m.getConfig},
		{"/api/status", nil, m.getStatus},
		{"/api/status/history", []string{"period", "resolution"}, m.getHistory},
		{"/api/metrics/summary", nil, m.getSummary},
		{"/api/ws", []string{"apps", "locations"}, m.serveWS},
		{"/api/availability", availParams, m.getAvailability},
		{"/api/apps/{name}/outages", []string{"from", "to"}, m.appOutages},
		{"/api/locations/{name}/outages", []string{"from", "to"}, m.locationOutages},
		{"/api/services/{name}/outages", []string{"from", "to"}, m.serviceOutages},
	}
}

// onlyParams refuses, with 400 VALIDATION_ERROR naming the accepted ones, a
// request whose query string is malformed or has a parameter not in params.
func (m *Monitor) onlyParams(params []string) func(http.Handler) http.Handler {
	accepted := "accepted query parameters: none"
	if len(params) > 0 {
		accepted = "accepted query parameters: " + strings.Join(params, ", ")
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.RawQuery != "" {
				if err := checkParams(r.URL.RawQuery, params, accepted); err != nil {
					m.writeError(w, r, err)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// acceptedParam reports whether key is one of params, or starts with the
// prefix of a params entry ending in ".*".
func acceptedParam(params []string, key string) bool {
	for _, p := range params {
		if p == key {
			return true
		}
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasSuffix(prefix, ".") &&
			len(key) > len(prefix) && strings.HasPrefix(key, prefix) {
			return true
		}
	}
	return false
}

func checkParams(rawQuery string, params []string, accepted string) error {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return validationError("invalid query string", err.Error(), accepted)
	}
	var unknown []string
	for key := range q {
		if !acceptedParam(params, key) {
			unknown = append(unknown, fmt.Sprintf("%q", key))
		}
	}
	switch len(unknown) {
	case 0:
		return nil
	case 1:
		return validationError("unknown query parameter "+unknown[0], accepted)
	default:
		slices.Sort(unknown)
		return validationError("unknown query parameters "+strings.Join(unknown, ", "), accepted)
	}
}
