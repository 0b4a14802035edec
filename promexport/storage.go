package promexport

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The families of a monitor's state saves, for an alert on saves that fail
// (a full disk, a read-only directory): the state a restart would find is
// then older and older.
const (
	NameStateLastSave     = "availmon_state_last_save_success_timestamp_seconds"
	NameStateSaveFailures = "availmon_state_save_failures_total"
)

// SaveStatus is what a monitor knows of its state saves.
type SaveStatus struct {
	// LastSuccess is when the last save succeeded; zero before the first.
	LastSuccess time.Time
	// Failures counts the saves that failed since the monitor started.
	Failures uint64
}

// SaveCollector returns a collector of the state-save families, read
// through status at collection time. A monitor without a store registers
// none: its families are then absent, not zero.
func SaveCollector(status func() SaveStatus) prometheus.Collector {
	return saveCollector{
		status: status,
		last: prometheus.NewDesc(NameStateLastSave,
			"Unix time of the last successful save of the monitor's state; 0 before the first.", nil, nil),
		failures: prometheus.NewDesc(NameStateSaveFailures,
			"Total saves of the monitor's state that failed.", nil, nil),
	}
}

type saveCollector struct {
	status         func() SaveStatus
	last, failures *prometheus.Desc
}

func (c saveCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.last
	ch <- c.failures
}

func (c saveCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.status()
	var last float64
	if !s.LastSuccess.IsZero() {
		last = float64(s.LastSuccess.UnixNano()) / 1e9
	}
	ch <- prometheus.MustNewConstMetric(c.last, prometheus.GaugeValue, last)
	ch <- prometheus.MustNewConstMetric(c.failures, prometheus.CounterValue, float64(s.Failures))
}
