package availmon

import (
	"fmt"
	"net/http"

	"github.com/availmon/availmon/promexport"
)

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
		Meta: listMetaJSON{Count: len(s.p.ctl.services), Timestamp: m.now(), LastUpdate: jsonTime(s.at)},
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
