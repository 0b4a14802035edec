package promexport

import (
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Snapshot is the monitor's state after a cycle, as the collector sees it.
// A Snapshot must not change once handed out.
type Snapshot struct {
	// Seq identifies the snapshot; the collector reuses the per-app metrics
	// it built while Seq stays the same.
	Seq       uint64
	Apps      []App
	Locations []Location
	Backends  []Backend
	Services  []Service
	// Objectives are the objectives' figures; ObjectiveLabels the label
	// names their series carry besides objective.
	Objectives      []Objective
	ObjectiveLabels []string
	// LastCycleEnd is zero before the first cycle.
	LastCycleEnd      time.Time
	LastCycleDuration time.Duration
}

// App is one app's last known state. Status is "up", "down" or
// "unavailable".
type App struct {
	Name, Location, Status string
	// Labels are the values of Options.ExportLabels, in that order; an
	// empty value leaves the label off.
	Labels []string
	// Maintenance is true while the app is in a maintenance window.
	Maintenance bool
	// Backend names the backend the app is checked through (the binary's
	// HTTP probes are backend "http"); availmon_unavailable carries it, so
	// that Alertmanager can inhibit an app's alert while its backend is
	// disconnected.
	Backend string
}

// Location counts the apps of one location by state.
type Location struct {
	Name                  string
	Up, Down, Unavailable int
}

// Backend tells whether a backend answered the last cycle that asked it.
type Backend struct {
	Name      string
	Connected bool
	// Known is false until a cycle has asked the backend.
	Known bool
}

// Options configures an Exporter.
type Options struct {
	// Snapshot returns the current state; nil until the first snapshot is
	// an error.
	Snapshot func() *Snapshot
	// Interval returns the current scrape interval.
	Interval func() time.Duration
	// ExportLabels are the app label keys availmon_up carries after app
	// and location.
	ExportLabels []string
}

// Exporter collects availmon's metric families. Register it on a
// prometheus.Registerer; it may be registered on several. It collects every
// family but http_requests_total, which Requests collects: a program that
// embeds the monitor usually counts its own requests under that name, with
// labels of its own, and one registry cannot hold both.
type Exporter struct {
	snapshot func() *Snapshot
	interval func() time.Duration

	scrapeDuration *prometheus.HistogramVec
	scrapeErrors   *prometheus.CounterVec
	httpRequests   *prometheus.CounterVec

	upDesc, unavailableDesc                   *prometheus.Desc
	appsDesc, locRatioDesc, backendDesc       *prometheus.Desc
	lastCycleDesc, cycleDurDesc, intervalDesc *prometheus.Desc
	controls                                  controlDescs
	up, unavailable                           appText
	mu                                        sync.Mutex
	cachedSeq                                 uint64
	cachedUp                                  []prometheus.Metric
	cachedOK                                  bool
	statuses                                  [3]string
	methods                                   map[string]bool
}

// Metric names. availmon_up, availmon_scrape_duration_seconds and
// availmon_scrape_errors_total are the per-app state and the cost of asking
// each backend; http_requests_total counts the API's own requests.
const (
	NameUp             = "availmon_up"
	NameUnavailable    = "availmon_unavailable"
	NameScrapeDuration = "availmon_scrape_duration_seconds"
	NameScrapeErrors   = "availmon_scrape_errors_total"
	NameHTTPRequests   = "http_requests_total"

	NameApps              = "availmon_apps"
	NameLocationRatio     = "availmon_location_availability_ratio"
	NameBackendConnected  = "availmon_backend_connected"
	NameLastCycle         = "availmon_last_cycle_timestamp_seconds"
	NameLastCycleDuration = "availmon_last_cycle_duration_seconds"
	NameScrapeInterval    = "availmon_scrape_interval_seconds"
)

const (
	upHelp          = "Availability of an app: 1 up, 0 down. Apps whose state is unavailable are absent; see availmon_unavailable."
	unavailableHelp = "1 while an app's state is unavailable (no answer or no sample); absent otherwise. backend is the backend it is checked through."
)

// New returns an Exporter reading state through o.
func New(o Options) *Exporter {
	if o.Snapshot == nil || o.Interval == nil {
		panic("promexport: New needs Snapshot and Interval functions")
	}
	// The labels of the per-app families before the exported ones.
	upFixed, unavailableFixed := []string{"app", "location"}, []string{"app", "location", "backend"}
	return &Exporter{
		snapshot: o.Snapshot,
		interval: o.Interval,
		scrapeDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: NameScrapeDuration,
			Help: "Duration of scrape requests to a backend, in seconds.",
			// 1ms to ~33s, doubling: a local Prometheus answers in
			// milliseconds, a remote one under load in seconds.
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}, []string{"target"}),
		scrapeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: NameScrapeErrors,
			Help: "Total scrape requests to a backend that failed.",
		}, []string{"target"}),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: NameHTTPRequests,
			Help: "Total HTTP requests served, by method, route pattern and status code.",
		}, []string{"method", "path", "status"}),
		upDesc: prometheus.NewDesc(NameUp, upHelp, slices.Concat(upFixed, o.ExportLabels), nil),
		up:     newAppText(NameUp, upHelp, false, upFixed, o.ExportLabels),
		unavailableDesc: prometheus.NewDesc(NameUnavailable, unavailableHelp,
			slices.Concat(unavailableFixed, o.ExportLabels), nil),
		unavailable: newAppText(NameUnavailable, unavailableHelp, true, unavailableFixed, o.ExportLabels),
		appsDesc: prometheus.NewDesc(NameApps,
			"Number of apps in each state (up, down, unavailable).", []string{"status"}, nil),
		locRatioDesc: prometheus.NewDesc(NameLocationRatio,
			"Share of a location's apps with a known state that are up (0-1); absent when none is known.",
			[]string{"location"}, nil),
		backendDesc: prometheus.NewDesc(NameBackendConnected,
			"Whether a backend answered the last check cycle: 1 yes, 0 no.", []string{"backend"}, nil),
		lastCycleDesc: prometheus.NewDesc(NameLastCycle,
			"Unix time at which the last check cycle completed.", nil, nil),
		cycleDurDesc: prometheus.NewDesc(NameLastCycleDuration,
			"How long the last check cycle took, in seconds.", nil, nil),
		intervalDesc: prometheus.NewDesc(NameScrapeInterval,
			"The current interval between check cycles, in seconds.", nil, nil),
		controls: newControlDescs(),
		statuses: [3]string{"up", "down", "unavailable"},
		methods: map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true,
			"PATCH": true, "DELETE": true, "OPTIONS": true, "CONNECT": true, "TRACE": true},
	}
}

// ObserveScrape records one request to a backend.
func (e *Exporter) ObserveScrape(target string, d time.Duration, err error) {
	e.scrapeDuration.WithLabelValues(target).Observe(d.Seconds())
	if err != nil {
		e.scrapeErrors.WithLabelValues(target).Inc()
	}
}

// InitTarget makes a target's scrape families appear at zero before its
// first request, so that rate() and absent() work from the start.
func (e *Exporter) InitTarget(target string) {
	e.scrapeDuration.WithLabelValues(target)
	e.scrapeErrors.WithLabelValues(target)
}

// ForgetTarget deletes a target's scrape series, for a backend that was
// removed: its series end rather than stay, stale, until a restart.
func (e *Exporter) ForgetTarget(target string) {
	e.scrapeDuration.DeleteLabelValues(target)
	e.scrapeErrors.DeleteLabelValues(target)
}

// ObserveRequest counts one HTTP request. route must be a route pattern (or
// another value from a fixed set), never a raw path; an unknown method is
// counted as "other".
func (e *Exporter) ObserveRequest(method, route string, status int) {
	if !e.methods[method] {
		method = "other"
	}
	e.httpRequests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
}

// Requests returns a collector of http_requests_total alone.
func (e *Exporter) Requests() prometheus.Collector { return e.httpRequests }

// Describe implements prometheus.Collector.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	e.scrapeDuration.Describe(ch)
	e.scrapeErrors.Describe(ch)
	for _, d := range append(e.snapshotDescs(), e.intervalDesc) {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.collectLive(ch)
	s := e.snapshot()
	for _, m := range e.upMetrics(s) {
		ch <- m
	}
	e.collectUnavailable(s, ch)
	e.collectSnapshot(s, ch)
}

// collectLive sends the families that change between snapshots, but for
// http_requests_total: the scrape counters and the interval.
func (e *Exporter) collectLive(ch chan<- prometheus.Metric) {
	e.scrapeDuration.Collect(ch)
	e.scrapeErrors.Collect(ch)
	ch <- prometheus.MustNewConstMetric(e.intervalDesc, prometheus.GaugeValue, e.interval().Seconds())
}

// collectSnapshot sends the families that only follow the snapshot s,
// but for the per-app ones (availmon_up, availmon_unavailable).
func (e *Exporter) collectSnapshot(s *Snapshot, ch chan<- prometheus.Metric) {
	var counts [3]int
	for _, l := range s.Locations {
		counts[0] += l.Up
		counts[1] += l.Down
		counts[2] += l.Unavailable
		if known := l.Up + l.Down; known > 0 {
			ch <- prometheus.MustNewConstMetric(e.locRatioDesc, prometheus.GaugeValue,
				float64(l.Up)/float64(known), l.Name)
		}
	}
	for i, st := range e.statuses {
		ch <- prometheus.MustNewConstMetric(e.appsDesc, prometheus.GaugeValue, float64(counts[i]), st)
	}
	for _, b := range s.Backends {
		if !b.Known {
			continue
		}
		v := 0.0
		if b.Connected {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(e.backendDesc, prometheus.GaugeValue, v, b.Name)
	}
	e.controls.collect(ch, s)
	if !s.LastCycleEnd.IsZero() {
		ch <- prometheus.MustNewConstMetric(e.lastCycleDesc, prometheus.GaugeValue,
			float64(s.LastCycleEnd.UnixNano())/1e9)
		ch <- prometheus.MustNewConstMetric(e.cycleDurDesc, prometheus.GaugeValue,
			s.LastCycleDuration.Seconds())
	}
}

// upMetrics builds availmon_up once per snapshot: with thousands of apps
// it is most of a scrape's work, and it only changes once a cycle.
func (e *Exporter) upMetrics(s *Snapshot) []prometheus.Metric {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cachedOK && e.cachedSeq == s.Seq {
		return e.cachedUp
	}
	out := e.buildUp(s)
	e.cachedSeq, e.cachedUp, e.cachedOK = s.Seq, out, true
	return out
}

func (e *Exporter) buildUp(s *Snapshot) []prometheus.Metric {
	out := make([]prometheus.Metric, 0, len(s.Apps))
	for _, a := range s.Apps {
		var v float64
		switch a.Status {
		case "up":
			v = 1
		case "down":
		default:
			continue // unknown is not down: leave it out
		}
		out = append(out, prometheus.MustNewConstMetric(e.upDesc, prometheus.GaugeValue, v, slices.Concat([]string{a.Name, a.Location}, a.Labels)...))
	}
	return out
}

// collectUnavailable sends availmon_unavailable: an unavailable app has no
// availmon_up, and without a series of its own an alert could not tell it
// from an app that was never there.
func (e *Exporter) collectUnavailable(s *Snapshot, ch chan<- prometheus.Metric) {
	for i := range s.Apps {
		a := &s.Apps[i]
		if a.Status != "unavailable" {
			continue
		}
		m, err := prometheus.NewConstMetric(e.unavailableDesc, prometheus.GaugeValue, 1,
			append([]string{a.Name, a.Location, a.Backend}, a.Labels...)...)
		if err != nil {
			m = prometheus.NewInvalidMetric(e.unavailableDesc, err)
		}
		ch <- m
	}
}
