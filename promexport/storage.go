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
	// The cost of the last successful save: its time, the part of it that
	// held the check cycles off, and its size. Absent before the first.
	NameStateSaveDuration = "availmon_state_last_save_duration_seconds"
	NameStateSaveLocked   = "availmon_state_last_save_cycle_lock_seconds"
	NameStateSaveBytes    = "availmon_state_last_save_bytes"
)

// SaveStatus is what a monitor knows of its state saves.
type SaveStatus struct {
	// LastSuccess is when the last save succeeded; zero before the first.
	LastSuccess time.Time
	// Failures counts the saves that failed since the monitor started.
	Failures uint64
	// LastDuration is how long the last successful save took, encoding
	// and writing; LastLocked how much of it the check cycles waited for;
	// LastBytes its size. Zero before the first.
	LastDuration, LastLocked time.Duration
	LastBytes                int
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
		took: prometheus.NewDesc(NameStateSaveDuration,
			"Seconds the last successful save of the monitor's state took, encoding and writing.", nil, nil),
		locked: prometheus.NewDesc(NameStateSaveLocked,
			"Seconds of the last successful save during which check cycles could not run.", nil, nil),
		bytes: prometheus.NewDesc(NameStateSaveBytes,
			"Size of the last successfully saved state, in bytes.", nil, nil),
	}
}

type saveCollector struct {
	status              func() SaveStatus
	last, failures      *prometheus.Desc
	took, locked, bytes *prometheus.Desc
}

func (c saveCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.last
	ch <- c.failures
	ch <- c.took
	ch <- c.locked
	ch <- c.bytes
}

func (c saveCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.status()
	var last float64
	if !s.LastSuccess.IsZero() {
		last = float64(s.LastSuccess.UnixNano()) / 1e9
	}
	ch <- prometheus.MustNewConstMetric(c.last, prometheus.GaugeValue, last)
	ch <- prometheus.MustNewConstMetric(c.failures, prometheus.CounterValue, float64(s.Failures))
	if s.LastSuccess.IsZero() {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.took, prometheus.GaugeValue, s.LastDuration.Seconds())
	ch <- prometheus.MustNewConstMetric(c.locked, prometheus.GaugeValue, s.LastLocked.Seconds())
	ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, float64(s.LastBytes))
}
