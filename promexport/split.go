package promexport

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// The Exporter's families fall in two groups. Those of a Snapshot change
// once a cycle and, with thousands of apps, are most of a scrape: a server
// can gather and encode them once per snapshot (GatherSnapshot). The live
// ones change between snapshots (request counters, the interval) and are
// small: gather them per scrape (Live).

// Live returns a collector of the Exporter's live families only,
// http_requests_total included.
func (e *Exporter) Live() prometheus.Collector { return liveCollector{e} }

type liveCollector struct{ e *Exporter }

func (c liveCollector) Describe(ch chan<- *prometheus.Desc) {
	c.e.scrapeDuration.Describe(ch)
	c.e.scrapeErrors.Describe(ch)
	c.e.httpRequests.Describe(ch)
	ch <- c.e.intervalDesc
}

func (c liveCollector) Collect(ch chan<- prometheus.Metric) {
	c.e.collectLive(ch)
	c.e.httpRequests.Collect(ch)
}

// GatherSnapshot gathers the families of s, sorted by name as a registry
// gathers them.
func (e *Exporter) GatherSnapshot(s *Snapshot) ([]*dto.MetricFamily, error) {
	return e.gather(snapshotCollector{e: e, s: s})
}

func (e *Exporter) gather(c snapshotCollector) ([]*dto.MetricFamily, error) {
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		return nil, err
	}
	return reg.Gather()
}

// snapshotCollector collects the families of s, the per-app ones left out
// when withoutPerApp (EncodeSnapshot writes them itself).
type snapshotCollector struct {
	e             *Exporter
	s             *Snapshot
	withoutPerApp bool
}

func (c snapshotCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.e.snapshotDescs() {
		ch <- d
	}
	od := newObjectiveDescs(c.s.ObjectiveLabels)
	for _, d := range od.list() {
		ch <- d
	}
}

// Collect builds availmon_up afresh rather than through the Exporter's
// cache: the caller of GatherSnapshot keeps what it needs of the result, and
// a second copy of every app's series would only hold memory.
func (c snapshotCollector) Collect(ch chan<- prometheus.Metric) {
	if !c.withoutPerApp {
		for _, m := range c.e.buildUp(c.s) {
			ch <- m
		}
		c.e.collectUnavailable(c.s, ch)
	}
	c.e.collectSnapshot(c.s, ch)
	od := newObjectiveDescs(c.s.ObjectiveLabels)
	od.collect(ch, c.s)
}

func (e *Exporter) snapshotDescs() []*prometheus.Desc {
	c := &e.controls
	return []*prometheus.Desc{e.upDesc, e.unavailableDesc, e.appsDesc, e.locRatioDesc, e.backendDesc,
		e.lastCycleDesc, e.cycleDurDesc,
		c.serviceUp, c.serviceLocsUp, c.serviceLocs, c.maintenance}
}

// FamilyNames are the names of every family an Exporter collects.
func FamilyNames() []string {
	return []string{NameUp, NameUnavailable, NameApps, NameLocationRatio, NameBackendConnected,
		NameLastCycle, NameLastCycleDuration, NameScrapeInterval,
		NameScrapeDuration, NameScrapeErrors, NameHTTPRequests,
		NameServiceUp, NameServiceLocationsUp, NameServiceLocations, NameMaintenance,
		NameObjectiveTarget, NameObjectiveAttainment, NameObjectiveBudgetRatio, NameObjectiveBudgetSeconds,
		NameObjectiveBurnRate, NameObjectiveState}
}
