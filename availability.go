package availmon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"github.com/availmon/availmon/internal/cyclegate"
	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/internal/repeatlog"
	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/period"
	"github.com/availmon/availmon/promexport"
	"github.com/prometheus/client_golang/prometheus"
)

// Status is the availability state of an application.
type Status string

// The states an application can be in. StatusUnavailable means the state
// could not be determined (the backend failed or timed out, or there was no
// sample); it is never counted as down.
const (
	StatusUp          Status = "up"
	StatusDown        Status = "down"
	StatusUnavailable Status = "unavailable"
)

// Valid reports whether s is one of the three states.
func (s Status) Valid() bool {
	return s == StatusUp || s == StatusDown || s == StatusUnavailable
}

// App is one monitored application.
type App struct {
	// Name identifies the app; it is the key in /api/apps/{name}.
	Name string
	// Location names one of Options.Locations.
	Location string
	// Metric is the expression the app's source evaluates (a PromQL
	// expression for a promsource backend). It is shown as `metric`; when
	// it is empty and Settings is a fmt.Stringer, Settings' String() is
	// shown instead (an httpprobe.Probe's "GET https://...").
	Metric string
	// ResponseTimeMetric optionally names an expression whose value, in
	// seconds, is reported as the app's response time instead of the
	// query round trip. Sources that have no use for it ignore it.
	ResponseTimeMetric string
	// Backend names one of Options.Backends. It may be empty when there is
	// exactly one backend.
	Backend string
	// Settings are what the app's Source needs to check it besides
	// Metric, of a type the source defines, such as an *httpprobe.Probe
	// for an httpprobe.Source. The monitor passes them on untouched; a
	// source that implements AppValidator checks them at New.
	Settings any
	// Labels are free-form names and values (team, service, env) that
	// /api/apps filters on and services group by. Keys must be Prometheus
	// label names.
	Labels map[string]string
	// FailThreshold and SuccessThreshold override Options' values for
	// this app; zero means the Options' value.
	FailThreshold, SuccessThreshold int
}

// Location is a named geographic place that apps belong to.
type Location struct {
	Name      string
	Latitude  float64 // decimal degrees, -90..90
	Longitude float64 // decimal degrees, -180..180
	// Match lists the values of a discovery rule's location label that
	// mean this location (see DiscoveryRule.LocationLabel).
	Match []string
}

// Result is the outcome of checking one app.
type Result struct {
	Status Status
	// ResponseTime is how long the check took, or the value the source
	// measured for the app; zero when unknown.
	ResponseTime time.Duration
	// Err says why the app is unavailable (or down, when the source knows).
	Err error
}

// Source tells the state of apps. Check receives a batch of apps that share
// one backend, at most Backend.BatchSize of them, and returns one Result per
// app, in the same order. A non-nil error means the backend itself could not
// be reached: every app of the batch is then unavailable and the backend
// counts as not answering. Check must return promptly once ctx is done;
// the monitor waits for it before it starts the next cycle. Check must not
// modify apps, nor keep it after it returns: it may be the monitor's own
// list (as an io.Writer must not modify the slice it is given). The slice
// of Results returned is the monitor's, which reads it until the cycle
// ends and may correct a malformed Result in it: a Source must not change
// or reuse it.
type Source interface {
	Check(ctx context.Context, apps []App) ([]Result, error)
}

// SourceFunc adapts a function that checks one app to a Source.
type SourceFunc func(ctx context.Context, app App) Result

// Check calls f for each app in turn.
func (f SourceFunc) Check(ctx context.Context, apps []App) ([]Result, error) {
	out := make([]Result, len(apps))
	for i, a := range apps {
		out[i] = f(ctx, a)
	}
	return out, nil
}

// Backend is a place availability comes from, such as one Prometheus server.
type Backend struct {
	// Name is referred to by App.Backend and labels the backend's metrics.
	Name string
	// URL is reported as the apps' prometheus_url and in prometheus_urls;
	// leave it empty for sources that have no URL (such as direct probes).
	URL string
	// Source checks the backend's apps.
	Source Source
	// BatchSize is the most apps handed to one Source.Check call. Zero
	// means 1: one app per call, each call running in parallel with others.
	// A Source that plans its own batches (BatchPlanner) reads it as it
	// sees fit: a promsource.Source makes one call per query, BatchSize
	// bounding the expressions combined into one query, the apps of one
	// fused selector counting as one.
	BatchSize int
}

// Clock tells the time. The interface is small on purpose, and layered as
// k8s.io/utils/clock layers its clocks: a Clock has Now, and may also
// implement
//
//   - TimerClock, to make timers: then the monitor schedules its check
//     cycle, its health deadline, the periodic save and the backfill's
//     retries on it, so that a test moving a fake clock drives the monitor
//     (package availmontest has one). Without it the monitor schedules on
//     Go's timers.
//   - a method Elapsed(from, to time.Time) time.Duration that tells the
//     real time between two of its readings, whatever the clock was set to
//     meanwhile (the system clock does, from Go's monotonic clock): then a
//     monitor tells a clock being set from time passing, and re-dates what
//     it has recorded by the step (see docs/decisions.md, History and
//     summaries).
//
// The system clock implements both.
type Clock interface {
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// Options configures a Monitor. The zero value of every optional field is a
// sensible default.
type Options struct {
	// Apps and Locations to monitor. Every app's location must be listed.
	Apps      []App
	Locations []Location
	// Backends the apps are checked against. As a shortcut for a single
	// backend, set Source instead: it becomes a backend named "default"
	// with no URL and a batch size of 1.
	Backends []Backend
	Source   Source
	// Discover lists rules that make apps of the series of PromQL
	// queries, at run time, beside Apps.
	Discover []DiscoveryRule

	// Interval between the starts of two check cycles; default 30s. It must
	// lie in [MinInterval, MaxInterval].
	Interval time.Duration
	// Timeout bounds one cycle; default the smaller of 10s and Interval.
	Timeout time.Duration
	// MaxParallel bounds the Source.Check calls in flight; default 32.
	MaxParallel int
	// HistorySize is how many recent checks /api/apps/{name} shows per app;
	// default 100.
	HistorySize int

	// FailThreshold is how many consecutive down (or unavailable) checks
	// it takes for an app to be shown down (or unavailable);
	// SuccessThreshold how many consecutive up checks to be shown up.
	// Default 1 each: every check is accepted. See state.go.
	FailThreshold, SuccessThreshold int
	// ExportLabels lists the app label keys that availmon_up carries
	// besides app and location; other labels are not exported, so that
	// the series' cardinality stays what the operator chose.
	ExportLabels []string
	// Services are rollups of the apps that match a label selector,
	// served at /api/services.
	Services []Service
	// Maintenance windows known from the start; more can be added through
	// POST /api/maintenance.
	Maintenance []MaintenanceWindow

	// Version is reported by /health and /api/config; default "dev".
	Version string
	// LogLevel is reported by /api/config; it does not change Logger.
	LogLevel slog.Level
	// Logger receives the monitor's logs; nil discards them.
	Logger *slog.Logger
	// Clock tells the time; nil means the system clock. A Clock that is
	// also a TimerClock schedules the cycles, the health deadline, the
	// saves and the backfill's retries (see Clock).
	Clock Clock
	// Registerer, when set, also receives the monitor's metric families
	// (they are always served by the handler's /metrics), all but
	// http_requests_total unless RegisterHTTPMetrics. Two monitors on
	// one Registerer must be told apart, e.g. with
	// prometheus.WrapRegistererWith.
	Registerer prometheus.Registerer
	// Gatherer, when set, is served by /metrics next to the monitor's own
	// families, such as a registry with the Go and process collectors. A
	// family of it named as one of the monitor's is left out: /metrics
	// serves the monitor's own, from a cache made once per cycle. (A
	// Registerer the monitor registered on may also be the Gatherer: the
	// answer is the same, but gathering it collects every app again.)
	Gatherer prometheus.Gatherer
	// RegisterHTTPMetrics has Registerer receive the monitor's
	// http_requests_total{method,path,status} as well. It is off by
	// default: the program that embeds the monitor usually counts its own
	// requests under that name with labels of its own (promhttp's code and
	// handler), and a registry holds one family of a name. The handler's
	// /metrics serves it either way.
	RegisterHTTPMetrics bool

	// Authenticator, when set, must accept a request before it may change
	// anything (POST /api/scrape-interval, the maintenance writes, POST
	// /-/reload); with ProtectReads it guards every GET /api/... as well.
	// /health and /metrics are never guarded. A *hmac.Verifier is one.
	Authenticator Authenticator
	ProtectReads  bool
	// AllowUnauthenticatedWrites serves the writes without an
	// Authenticator, for a program that authenticates them in front of the
	// handler itself. Without either, every write is refused with 403
	// FORBIDDEN: a write can open a maintenance window, which silences
	// alerts, so it is never open by default. It contradicts an
	// Authenticator.
	AllowUnauthenticatedWrites bool

	// Reload, when set, is served as POST /-/reload; like every write it
	// requires an Authenticator or AllowUnauthenticatedWrites.
	Reload ReloadFunc

	// WSMaxClients bounds the /api/ws clients connected at once; past it
	// an upgrade is answered 503 SERVICE_UNAVAILABLE. Default 1000.
	WSMaxClients int
	// WSPingInterval is how often /api/ws clients are pinged; default 30s.
	WSPingInterval time.Duration
	// WSWriteTimeout bounds one message (or ping) to an /api/ws client; a
	// client that stops reading is closed when it passes. Default 10s.
	WSWriteTimeout time.Duration
	// WSOriginPatterns lets browser pages of other origins open /api/ws:
	// host patterns in path.Match syntax, such as "status.example.com" or
	// "*.example.com". A pattern without a port matches any port
	// ("localhost" lets http://localhost:5555 in); "localhost:5555"
	// matches that port only. By default only same-origin pages (and
	// non-browser clients, which send no Origin) may connect.
	WSOriginPatterns []string
	// EventBuffer is how many recent events are kept for /api/ws clients
	// that fall behind; a client further behind is closed. Default the
	// larger of 1024 and twice the number of apps (counting the MaxApps of
	// each discovery rule), locations and services, up to 65,536.
	EventBuffer int

	// Store, when set, keeps the monitor's state across restarts: New
	// restores what it saved, Run saves every SaveInterval (default
	// DefaultSaveInterval) and once more when it returns. Nil: no file I/O.
	Store        Store
	SaveInterval time.Duration
	// Backfill, when set, has Run fill in the background the history this
	// monitor has no observation for (a first start, the gap of a restart)
	// from the backends that keep the past: range queries of the apps' own
	// expressions, one point a minute, over the last 30 days (the 24h
	// counters over the last 24 hours). Only backends whose Source is a
	// PastSource can (a promsource.Source is one); HTTP probes cannot look
	// back. The API never waits for it; a log line
	// says when it is done. A query that fails or times out is asked
	// again with backoff (from BackfillRetryMin, doubling up to
	// BackfillRetryMax, on the Clock) until every gap it covers is
	// filled; the backfill is done, and applied, only then.
	Backfill bool
	// BackfillQueryTimeout bounds one range query of the backfill;
	// default DefaultBackfillQueryTimeout. The server is told it too.
	BackfillQueryTimeout time.Duration

	// Retention is how long the record of availability over time (GET
	// /api/availability and the outages) is kept, an app removed from the
	// configuration included; default 400 days (DefaultRetention).
	Retention time.Duration
	// TimeZone is the zone calendar periods and steps of
	// /api/availability are counted in when a request names none (?tz=),
	// and of the objectives' calendar windows that name none; nil means
	// UTC.
	TimeZone *time.Location
	// ExportWindows are the rolling windows over which /metrics exports
	// each app's availability and coverage
	// (availmon_app_availability_ratio, availmon_app_coverage_ratio with
	// a window label); none by default: each window adds two series per
	// app.
	ExportWindows []period.Window

	// Objectives are promises about apps, locations, services or label
	// selections (objective.Objective, its Subject naming exactly one),
	// evaluated every cycle from the record of availability over time and
	// served at /api/objectives and /metrics. An objective's app may be a
	// discovered one when there are discovery rules; a selector that
	// matches no app yet is logged, not refused.
	Objectives []objective.Objective
}

// DefaultRetention is Options.Retention when it is zero: the longest
// window a query can name.
const DefaultRetention = ledger.DefaultRetention

// Authenticator accepts or refuses a request. Verify may read the body but
// must leave it for the handler to read again.
type Authenticator interface {
	Verify(r *http.Request) error
}

// Limits of the scrape interval, as accepted by SetInterval and the API.
const (
	MinInterval = time.Second
	MaxInterval = time.Hour
)

const (
	defaultInterval    = 30 * time.Second
	defaultMaxTimeout  = 10 * time.Second
	defaultMaxParallel = 32
	defaultHistorySize = 100
	defaultBackendName = "default"
)

// Monitor watches a set of apps. Create it with New, start it with Run,
// and serve its API with Handler; change the set with Reconfigure. All
// methods are safe for concurrent use.
type Monitor struct {
	cfg     settings
	api     apiSettings
	ws      wsHub
	persist persistence
	disc    discovery
	run     runState

	conds    repeatlog.Log // conditions the cycles and the backfill see recur
	log      *slog.Logger
	clock    Clock
	timers   TimerClock // schedules the cycles, the saves and the backfill's retries
	interval atomic.Pointer[intervalSetting]

	bf backfillRun // the backfill from the backends' past (backfill*.go)
	// cycles tells the backfill when cycles run, so that it gives way.
	cycles *cyclegate.Gate

	cycleMu sync.Mutex     // one cycle (or reconfiguration) at a time
	plan    *plan          // under cycleMu; readers use the snapshot's plan
	ctlOpts controlOptions // the services, badges and filters New was given
	maint   *maintenance
	state   *cycleState
	ledger  *ledger.Ledger // under cycleMu: availability over time (ledger.go)
	snapGen uint64         // under cycleMu: snapshots published so far
	pastGen uint64         // under cycleMu: changes of the ledger's past (pastChanged)
	winKey  string         // under cycleMu: the maintenance windows' keys the ledger last synced
	snap    atomic.Pointer[snapshot]
	hist    *minuteHistory
	events  *eventLog

	exp             *promexport.Exporter
	live            *liveFamilies // what /metrics gathers per scrape (metrics.go)
	filteredMetrics http.Handler  // serves /metrics?name[]=...
	bodyHints       bodyHints
	statusAnswer    statusCache    // the last /api/status answer
	reports         keptReports    // the reports of closed periods (reportAnswers)
	objs            objectiveState // under cycleMu (objectives.go)
}

// settings are the Options New fixed, which nothing changes afterwards.
type settings struct {
	timeout     time.Duration // zero: follow the interval
	maxParallel int
	historySize int
	version     string
	logLevel    slog.Level
	timeZone    *time.Location // of calendar periods when a request names none
}

// apiSettings are who may use the API and what its writes may do.
type apiSettings struct {
	auth         Authenticator
	openWrites   bool // AllowUnauthenticatedWrites
	protectReads bool
	reload       ReloadFunc
	refusals     repeatlog.Log // rate-limits the log of refused requests (refusalBurst per refusalWindow)
}

// persistence is where and how often the state is saved, and how the
// saves went.
type persistence struct {
	store    Store
	interval time.Duration
	saves    saveRecord
	encoding sync.Mutex // one state encoding at a time (persist.go)
	// streamBuf is the buffer of the last streamed save, for the next;
	// under encoding.
	streamBuf []byte
	// lastCut is the last save's cut, whose per-app slices the next one
	// reuses: under encoding.
	lastCut *saveCut
}

// discovery is the discovery rules' state, under cycleMu but for metrics.
type discovery struct {
	rules    []*ruleState
	awaiting map[string]savedApp // saved discovered apps (discover.go)
	metrics  discoveryMetrics
}

// runState is what Run and the API's health know of the running monitor.
type runState struct {
	started         time.Time
	running         atomic.Bool
	stopping        atomic.Bool
	from            atomic.Uint64             // event sequence number when Run last started
	progress        atomic.Pointer[time.Time] // Run's start or last cycle end, on timers
	intervalChanged chan struct{}             // wakes Run when the interval changes
}

// intervalSetting keeps the text the interval was set with, so the API echoes
// "60s" rather than a normalized "1m".
type intervalSetting struct {
	d       time.Duration
	text    string
	runtime bool // set through SetInterval or the API, so kept by a Store
}

// New validates opts and returns a Monitor. It starts nothing.
func New(opts Options) (*Monitor, error) {
	m := newMonitor(&opts)
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if m.cfg.maxParallel < 0 {
		bad("max parallel %d is negative", m.cfg.maxParallel)
	}
	if m.cfg.historySize < 0 {
		bad("history size %d is negative", m.cfg.historySize)
	}
	interval := opts.Interval
	if interval == 0 {
		interval = defaultInterval
	}
	if err := checkInterval(interval); err != nil {
		bad("interval: %w", err)
	}
	m.interval.Store(&intervalSetting{d: interval, text: formatDuration(interval)})
	switch {
	case opts.Timeout < 0:
		bad("timeout %s is negative", opts.Timeout)
	case opts.Timeout > interval:
		// The one rule, as the configuration file has it: a cycle's
		// timeout is never longer than the interval.
		bad("timeout %s is longer than the interval %s", formatDuration(opts.Timeout), formatDuration(interval))
	}

	m.ctlOpts = controlOptionsOf(&opts)
	p, rules, perrs := buildPlanAndRules(&opts)
	errs = append(errs, perrs...)
	errs = append(errs, m.initMaintenance(p, opts.Maintenance, len(opts.Discover) > 0)...)
	if p != nil {
		set, oerrs := m.checkObjectives(p, opts.Objectives, opts.TimeZone, len(opts.Discover) > 0)
		errs = append(errs, oerrs...)
		m.setObjectives(p, set, opts.Objectives, opts.TimeZone)
	}
	if opts.WSMaxClients < 0 || opts.WSPingInterval < 0 || opts.WSWriteTimeout < 0 || opts.EventBuffer < 0 {
		bad("WSMaxClients, WSPingInterval, WSWriteTimeout and EventBuffer must not be negative")
	}
	for _, p := range opts.WSOriginPatterns {
		if _, err := path.Match(p, ""); err != nil {
			bad("WSOriginPatterns: %q: %w", p, err)
		}
	}
	if opts.SaveInterval < 0 || opts.BackfillQueryTimeout < 0 || opts.Retention < 0 {
		bad("SaveInterval, BackfillQueryTimeout and Retention must not be negative")
	}
	if opts.ProtectReads && opts.Authenticator == nil {
		bad("ProtectReads needs an Authenticator")
	}
	if opts.AllowUnauthenticatedWrites && opts.Authenticator != nil {
		bad("AllowUnauthenticatedWrites contradicts an Authenticator: with one, writes are authenticated")
	}
	if opts.Reload != nil && opts.Authenticator == nil && !opts.AllowUnauthenticatedWrites {
		bad("Reload needs an Authenticator (or AllowUnauthenticatedWrites): POST /-/reload is a write")
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("availmon: invalid options: %w", err)
	}
	m.plan, m.disc.rules, m.disc.metrics, m.bf.metrics = p, rules, newDiscoveryMetrics(), newBackfillMetrics()
	m.run.started = m.clock.Now()
	m.hist = newMinuteHistory()
	m.events = newEventLog(cmp.Or(opts.EventBuffer, defaultEventBuffer(p, rules)))
	m.events.useNames(p.apps, p.appIndex)
	m.state = newCycleState(p)
	m.initLedger(&opts, p)
	if m.persist.store != nil {
		m.restore(context.Background())
	}
	m.publish(m.run.started, m.events.cursor())
	if err := m.initMetrics(&opts); err != nil {
		return nil, err
	}
	return m, nil
}

// newMonitor is a Monitor of the settings in opts, with their defaults;
// New validates them and builds the rest.
func newMonitor(opts *Options) *Monitor {
	m := &Monitor{
		bf: backfillRun{enabled: opts.Backfill, timeout: cmp.Or(opts.BackfillQueryTimeout, DefaultBackfillQueryTimeout)},
		cfg: settings{
			maxParallel: cmp.Or(opts.MaxParallel, defaultMaxParallel),
			historySize: cmp.Or(opts.HistorySize, defaultHistorySize),
			version:     cmp.Or(opts.Version, "dev"),
			logLevel:    opts.LogLevel,
			timeout:     opts.Timeout,
		},
		api: apiSettings{
			auth:         opts.Authenticator,
			openWrites:   opts.AllowUnauthenticatedWrites,
			reload:       opts.Reload,
			protectReads: opts.ProtectReads,
			refusals:     repeatlog.Log{Burst: refusalBurst, Window: refusalWindow},
		},
		ws: wsHub{
			maxClients:   cmp.Or(opts.WSMaxClients, defaultWSMaxClients),
			pingInterval: cmp.Or(opts.WSPingInterval, defaultWSPingInterval),
			writeTimeout: cmp.Or(opts.WSWriteTimeout, defaultWSWriteTimeout),
			origins:      originPatterns(opts.WSOriginPatterns),
		},
		persist: persistence{
			store:    opts.Store,
			interval: cmp.Or(opts.SaveInterval, DefaultSaveInterval),
		},
		run:    runState{intervalChanged: make(chan struct{}, 1)},
		log:    opts.Logger,
		clock:  opts.Clock,
		cycles: cyclegate.New(),
	}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.clock == nil {
		m.clock = systemClock{}
	}
	m.timers = timerClockOf(m.clock)
	return m
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

// Interval returns the current scrape interval.
func (m *Monitor) Interval() time.Duration { return m.interval.Load().d }

// SetInterval changes the scrape interval; the next cycle is scheduled with
// it. It must lie in [MinInterval, MaxInterval]. The change is recorded as a
// config_update event.
func (m *Monitor) SetInterval(d time.Duration) error {
	_, err := m.setInterval(d, formatDuration(d))
	return err
}

func (m *Monitor) setInterval(d time.Duration, text string) (previous *intervalSetting, err error) {
	if err := checkInterval(d); err != nil {
		return nil, err
	}
	next := &intervalSetting{d: d, text: text, runtime: true}
	previous = m.interval.Swap(next)
	select {
	case m.run.intervalChanged <- struct{}{}:
	default: // Run is already due to look at the new value
	}
	now := m.clock.Now()
	m.events.append(Event{Type: EventConfigUpdate, Time: now, Interval: text, PreviousInterval: previous.text})
	m.log.Info("scrape interval changed", "interval", text, "previous_interval", previous.text)
	return previous, nil
}

func checkInterval(d time.Duration) error {
	if d < MinInterval || d > MaxInterval {
		return fmt.Errorf("%s is outside [%s, %s]", formatDuration(d), formatDuration(MinInterval), formatDuration(MaxInterval))
	}
	return nil
}

// cycleTimeout is the deadline of one cycle for interval d. It is never
// longer than d: an interval set through the API below the configured
// timeout lowers the timeout with it, so cycles cannot pile up behind one
// another.
func (m *Monitor) cycleTimeout(d time.Duration) time.Duration {
	if m.cfg.timeout > 0 {
		return min(m.cfg.timeout, d)
	}
	return min(defaultMaxTimeout, d)
}

// stalled reports whether the scrape loop has made no progress for longer
// than three intervals plus the timeout, or is not running at all. The
// deadline is on the clock the cycles are scheduled on: a clock that drives
// them moves it, and a clock without timers cannot make it pass.
func (m *Monitor) stalled() bool {
	last := m.run.progress.Load()
	if !m.run.running.Load() || m.run.stopping.Load() || last == nil {
		return true
	}
	d := m.Interval()
	return m.timers.Now().Sub(*last) > 3*d+m.cycleTimeout(d)
}

// warnStarted logs msg at warning level when the condition key starts, and
// nothing while it lasts: what it is meanwhile is a metric's to say.
func (m *Monitor) warnStarted(key string, now time.Time, msg string, attrs ...any) {
	if logIt, _ := m.conds.Note(key, now); logIt {
		m.log.Warn(msg, attrs...)
	}
}

// infoEnded logs msg when the condition key, if it was on, ends, with how
// many times it was seen (under countName: cycles, failed queries) and how
// long it lasted.
func (m *Monitor) infoEnded(key string, now time.Time, msg, countName string, attrs ...any) {
	if run, ok := m.conds.End(key); ok {
		m.log.Info(msg, append(attrs, countName, run.Count, "lasted", formatUptime(now.Sub(run.Since)))...)
	}
}
