package promexport

import "github.com/prometheus/client_golang/prometheus"

// Service is one service rollup. State is "up", "degraded", "down" or
// "unavailable".
type Service struct {
	Name              string
	State             string
	LocationsUp, Locs int
}

// Metric names of the operators' controls.
const (
	NameServiceUp          = "availmon_service_up"
	NameServiceLocationsUp = "availmon_service_locations_up"
	NameServiceLocations   = "availmon_service_locations"
	NameMaintenance        = "availmon_maintenance"
)

// controlDescs are the families of the operators' controls.
type controlDescs struct {
	serviceUp, serviceLocsUp, serviceLocs, maintenance *prometheus.Desc
}

func newControlDescs() controlDescs {
	return controlDescs{
		serviceUp: prometheus.NewDesc(NameServiceUp,
			"Whether a service meets its quorum of locations up: 1 up or degraded, 0 down; absent when too few locations are known.",
			[]string{"service"}, nil),
		serviceLocsUp: prometheus.NewDesc(NameServiceLocationsUp,
			"Number of a service's locations where all its apps are up (or in maintenance).", []string{"service"}, nil),
		serviceLocs: prometheus.NewDesc(NameServiceLocations,
			"Number of locations a service has apps in.", []string{"service"}, nil),
		maintenance: prometheus.NewDesc(NameMaintenance,
			"1 while an app is in a maintenance window; absent otherwise, so that alerts can use unless.", []string{"app", "location"}, nil),
	}
}

func (d *controlDescs) collect(ch chan<- prometheus.Metric, s *Snapshot) {
	for _, sv := range s.Services {
		switch sv.State {
		case "up", "degraded":
			ch <- prometheus.MustNewConstMetric(d.serviceUp, prometheus.GaugeValue, 1, sv.Name)
		case "down":
			ch <- prometheus.MustNewConstMetric(d.serviceUp, prometheus.GaugeValue, 0, sv.Name)
		}
		ch <- prometheus.MustNewConstMetric(d.serviceLocsUp, prometheus.GaugeValue, float64(sv.LocationsUp), sv.Name)
		ch <- prometheus.MustNewConstMetric(d.serviceLocs, prometheus.GaugeValue, float64(sv.Locs), sv.Name)
	}
	for _, a := range s.Apps {
		if a.Maintenance {
			ch <- prometheus.MustNewConstMetric(d.maintenance, prometheus.GaugeValue, 1, a.Name, a.Location)
		}
	}
}
