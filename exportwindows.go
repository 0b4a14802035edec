package availmon

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/period"
)

// windowMetrics exports each app's availability and coverage over the
// windows of Options.ExportWindows, from the snapshot's ledger, for
// dashboards that graph long windows without a range query over months of
// samples. The figures are made once per snapshot.
type windowMetrics struct {
	windows         []period.Window
	snap            func() *snapshot
	avail, coverage *prometheus.Desc
	mu              sync.Mutex
	made            *snapshot
	metrics         []prometheus.Metric
}

func newWindowMetrics(ws []period.Window, snap func() *snapshot) *windowMetrics {
	labels := []string{"app", "location", "window"}
	return &windowMetrics{windows: ws, snap: snap,
		avail: prometheus.NewDesc("availmon_app_availability_ratio",
			"Time up over time up or down of the app over the window ending at the last cycle (Options.ExportWindows).", labels, nil),
		coverage: prometheus.NewDesc("availmon_app_coverage_ratio",
			"Time of known state over the time outside maintenance of the app over the window ending at the last cycle.", labels, nil),
	}
}

func (c *windowMetrics) Describe(ch chan<- *prometheus.Desc) { ch <- c.avail; ch <- c.coverage }

func (c *windowMetrics) Collect(ch chan<- prometheus.Metric) {
	for _, m := range c.collect() {
		ch <- m
	}
}

func (c *windowMetrics) collect() []prometheus.Metric {
	s := c.snap()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.made == s {
		return c.metrics
	}
	b := s.book
	var out []prometheus.Metric
	for _, w := range c.windows {
		rng := w.Ending(b.At)
		q := ledger.Query{From: rng.Start, To: rng.End}
		for i := range b.Current(ledger.App) {
			f := b.App(i, q)
			lv := []string{b.Name(ledger.App, i), b.AppLocation(i), w.String()}
			if a, ok := f.Availability(); ok {
				out = append(out, prometheus.MustNewConstMetric(c.avail, prometheus.GaugeValue, a, lv...))
			}
			if cv, ok := f.Coverage(); ok {
				out = append(out, prometheus.MustNewConstMetric(c.coverage, prometheus.GaugeValue, cv, lv...))
			}
		}
	}
	c.made, c.metrics = s, out
	return out
}
