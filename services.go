package availmon

import (
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/availmon/availmon/internal/jsontime"
	"github.com/availmon/availmon/promexport"
)

// Service is a rollup of the apps that match a label selector, typically
// one app per location (service=checkout in Tel Aviv, Frankfurt and
// Virginia). It is up when every location is up, degraded when some are
// not but at least the quorum is, and down below the quorum.
type Service struct {
	// Name identifies the service in /api/services/{name}.
	Name string
	// Selector picks the apps whose labels have every one of these values.
	// Empty means {"service": Name}.
	Selector map[string]string
	// MinUp is the quorum: how many locations must be up for the service
	// not to be down. Default 1.
	MinUp int
	// MinUpPercent, instead of MinUp, is the quorum as a share (0-100] of
	// the service's locations, rounded up to whole locations.
	MinUpPercent float64
}

// Service states. A service is unavailable when too few locations are
// known to tell whether the quorum holds.
const (
	ServiceUp          = "up"
	ServiceDegraded    = "degraded"
	ServiceDown        = "down"
	ServiceUnavailable = "unavailable"
)

// service is a Service resolved against the monitor's apps.
type service struct {
	Service
	locs    []int   // location indexes that hold some of its apps, in order
	locApps [][]int // app indexes per entry of locs
	minUp   int
}

func compileServices(p *plan, in []Service) ([]service, map[string]int, []error) {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	out := make([]service, 0, len(in))
	index := make(map[string]int, len(in))
	for i, sv := range in {
		switch {
		case strings.TrimSpace(sv.Name) == "":
			bad("service %d has no name", i+1)
			continue
		case hasKey(index, sv.Name):
			bad("service %q is listed twice", sv.Name)
			continue
		}
		s := service{Service: sv}
		s.Selector = maps.Clone(sv.Selector)
		if len(s.Selector) == 0 {
			s.Selector = map[string]string{"service": sv.Name}
		}
		for k, v := range s.Selector {
			if err := checkLabel(k, v); err != nil {
				bad("service %q: selector: %w", sv.Name, err)
			}
		}
		slot := make(map[int]int) // location index -> index in s.locs
		for ai, a := range p.apps {
			if !matches(a.Labels, s.Selector) {
				continue
			}
			li := p.appLocs[ai]
			j, ok := slot[li]
			if !ok {
				j = len(s.locs)
				slot[li] = j
				s.locs = append(s.locs, li)
				s.locApps = append(s.locApps, nil)
			}
			s.locApps[j] = append(s.locApps[j], ai)
		}
		if len(s.locs) == 0 {
			bad("service %q: no app matches its selector %s", sv.Name, formatSelector(s.Selector))
		}
		switch {
		case sv.MinUp != 0 && sv.MinUpPercent != 0:
			bad("service %q: set MinUp or MinUpPercent, not both", sv.Name)
		case sv.MinUp < 0:
			bad("service %q: MinUp %d is negative", sv.Name, sv.MinUp)
		case sv.MinUp > len(s.locs) && len(s.locs) > 0:
			bad("service %q: MinUp %d is more than its %d locations", sv.Name, sv.MinUp, len(s.locs))
		case math.IsNaN(sv.MinUpPercent) || sv.MinUpPercent < 0 || sv.MinUpPercent > 100:
			bad("service %q: MinUpPercent %v is outside (0, 100]", sv.Name, sv.MinUpPercent)
		case sv.MinUpPercent > 0:
			s.minUp = max(1, int(math.Ceil(sv.MinUpPercent*float64(len(s.locs))/100-1e-9)))
		default:
			s.minUp = max(1, sv.MinUp)
		}
		index[sv.Name] = len(out)
		out = append(out, s)
	}
	return out, index, errs
}

// matches reports whether labels has every key of sel with its value.
func matches(labels, sel map[string]string) bool {
	for k, v := range sel {
		if lv, ok := labels[k]; !ok || lv != v {
			return false
		}
	}
	return true
}

func formatSelector(sel map[string]string) string {
	parts := make([]string, 0, len(sel))
	for _, k := range slices.Sorted(maps.Keys(sel)) {
		parts = append(parts, fmt.Sprintf("%s=%q", k, sel[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// serviceView is a service's state in one snapshot.
type serviceView struct {
	state    string
	locsUp   int
	locState []Status // per entry of service.locs
}

// evaluate rolls the apps' shown states up. A location is up when every
// one of the service's apps there is up, down when one is down, and
// unavailable otherwise. An app in maintenance counts as up: planned work
// must not page anyone.
func (s *service) evaluate(status func(ai int) Status) serviceView {
	v := serviceView{locState: make([]Status, len(s.locs))}
	unknown := 0
	for j, apps := range s.locApps {
		st := StatusUp
		for _, ai := range apps {
			switch status(ai) {
			case StatusDown:
				st = StatusDown
			case StatusUnavailable:
				if st == StatusUp {
					st = StatusUnavailable
				}
			}
		}
		v.locState[j] = st
		switch st {
		case StatusUp:
			v.locsUp++
		case StatusUnavailable:
			unknown++
		}
	}
	switch {
	case v.locsUp == len(s.locs):
		v.state = ServiceUp
	case v.locsUp >= s.minUp:
		v.state = ServiceDegraded
	case v.locsUp+unknown >= s.minUp:
		v.state = ServiceUnavailable
	default:
		v.state = ServiceDown
	}
	return v
}

type serviceJSON struct {
	Name           string            `json:"name"`
	Status         string            `json:"status"`
	MinUp          int               `json:"min_up"`
	LocationsUp    int               `json:"locations_up"`
	LocationsTotal int               `json:"locations_total"`
	AppsCount      int               `json:"apps_count"`
	Selector       map[string]string `json:"selector"`
}

type serviceDetailJSON struct {
	serviceJSON
	Locations []serviceLocationJSON `json:"locations"`
}

type serviceLocationJSON struct {
	Name   string           `json:"name"`
	Status Status           `json:"status"`
	Apps   []serviceAppJSON `json:"apps"`
}

type serviceAppJSON struct {
	Name        string `json:"name"`
	Status      Status `json:"status"`
	Maintenance bool   `json:"maintenance,omitempty"`
}

func (s *snapshot) serviceJSON(i int) serviceJSON {
	sv, v := &s.p.ctl.services[i], s.ctlViews().services[i]
	n := 0
	for _, apps := range sv.locApps {
		n += len(apps)
	}
	return serviceJSON{Name: sv.Name, Status: v.state, MinUp: sv.minUp, LocationsUp: v.locsUp,
		LocationsTotal: len(sv.locs), AppsCount: n, Selector: sv.Selector}
}

func (s *snapshot) servicesData() []byte {
	v := s.ctlViews()
	return v.svcJSON.get(func() any {
		out := make([]serviceJSON, len(v.services))
		for i := range out {
			out[i] = s.serviceJSON(i)
		}
		return out
	})
}

func (s *snapshot) serviceData(i int) []byte {
	v := s.ctlViews()
	return v.svcOne[i].get(func() any {
		pl, sv := s.p, &s.p.ctl.services[i]
		out := serviceDetailJSON{serviceJSON: s.serviceJSON(i), Locations: make([]serviceLocationJSON, len(sv.locs))}
		for j, li := range sv.locs {
			loc := serviceLocationJSON{Name: pl.locations[li].Name, Status: v.services[i].locState[j],
				Apps: make([]serviceAppJSON, len(sv.locApps[j]))}
			for k, ai := range sv.locApps[j] {
				loc.Apps[k] = serviceAppJSON{Name: pl.apps[ai].Name, Status: s.apps[ai].status(), Maintenance: s.apps[ai].maint()}
			}
			out.Locations[j] = loc
		}
		return out
	})
}

func (m *Monitor) listServices(w http.ResponseWriter, r *http.Request) {
	s := m.snap.Load()
	writeJSON(w, http.StatusOK, envelope{
		Data: rawJSON(s.servicesData()),
		Meta: listMetaJSON{Count: len(s.p.ctl.services), Timestamp: m.now(), LastUpdate: jsontime.Time(s.at)},
	})
}

func (m *Monitor) getService(w http.ResponseWriter, r *http.Request) {
	name, err := pathName(r)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	s := m.snap.Load()
	i, ok := s.p.ctl.serviceIndex[name]
	if !ok {
		m.writeError(w, r, notFoundError("service not found", fmt.Sprintf("no service is named %q", name)))
		return
	}
	writeJSON(w, http.StatusOK, envelope{
		Data: rawJSON(s.serviceData(i)),
		Meta: metaJSON{Timestamp: m.now()},
	})
}

func (s *snapshot) promServices() []promexport.Service {
	v := s.ctlViews()
	out := make([]promexport.Service, len(v.services))
	for i, sv := range v.services {
		out[i] = promexport.Service{Name: s.p.ctl.services[i].Name, State: sv.state,
			LocationsUp: sv.locsUp, Locs: len(s.p.ctl.services[i].locs)}
	}
	return out
}
