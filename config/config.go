package config

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	promconfig "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/httpprobe"
	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/period"
)

// Config is a configuration file, parsed and checked. Its zero-valued
// settings have already been replaced by their defaults.
type Config struct {
	Interval time.Duration // scrape_interval
	// Timeout is scrape_timeout, or when the file has none the smaller of
	// DefaultMaxTimeout and the interval; TimeoutSet says which.
	Timeout     time.Duration
	TimeoutSet  bool
	MaxParallel int
	HistorySize int
	LogLevel    slog.Level
	Prometheus  []Prometheus
	Locations   []availmon.Location
	Apps        []App
	// Discover is the discover: section: rules that make apps of series.
	Discover []availmon.DiscoveryRule
	// HMAC is nil when authentication is off.
	HMAC *HMAC
	// AllowUnauthenticatedWrites is authentication.allow_unauthenticated_writes:
	// without HMAC, serve the writes unsigned rather than refuse them
	// (availmon.Options.AllowUnauthenticatedWrites).
	AllowUnauthenticatedWrites bool
	// ReplayFile is where the HMAC verifier keeps the signatures it
	// accepted (hmac.VerifierOptions.ReplayFile). It is no key of the file:
	// OptionsWithStore sets it beside the state; empty, the verifier keeps
	// them in memory only.
	ReplayFile string
	// WSOriginPatterns is websocket.allowed_origins: hosts of browser
	// pages of other origins that may open /api/ws.
	WSOriginPatterns []string
	// Storage is where and how often the state is saved (storage.*).
	Storage Storage
	// Reports is how figures over calendar periods are counted (reports.*).
	Reports Reports
	// ExportWindows are export_windows: the rolling windows over which
	// /metrics exports each app's availability (Options.ExportWindows).
	ExportWindows []period.Window
	// Objectives are the objectives: section (availmon.Options.Objectives).
	Objectives []objective.Objective
	// Warnings are problems that do not stop the file from being used,
	// such as an objective's selector that matches no app yet.
	Warnings []*Error
	// Controls are the operators' controls: flap damping, exported labels,
	// services and maintenance windows (controls.go).
	Controls
}

// Prometheus is one metrics backend.
type Prometheus struct {
	Name             string
	URL              string
	HTTPClientConfig promconfig.HTTPClientConfig
	// MaxResponseBytes is max_response_bytes: the most read of one answer
	// (promsource.Options.MaxResponseBytes); 0 means the default.
	MaxResponseBytes int64
	// MaxQueryLength is max_query_length: the longest query sent
	// (promsource.Options.MaxQueryLength); 0 means the default.
	MaxQueryLength int
	// ShardSeries is shard_series (promsource.Options.ShardSeries): 0
	// means the default, -1 never (shard_series: 0 in the file).
	ShardSeries int
}

// App is one app as configured: exactly one of Metric and HTTP is set.
type App struct {
	Name               string
	Location           string
	Metric             string
	ResponseTimeMetric string
	// Prometheus names the app's backend; it is filled in when the file
	// leaves it out and there is only one.
	Prometheus string
	HTTP       *httpprobe.Probe
	// Labels, FailThreshold and SuccessThreshold: see availmon.App.
	Labels                          map[string]string
	FailThreshold, SuccessThreshold int
}

// HMAC is authentication.hmac when enabled.
type HMAC struct {
	Secret           []byte
	SkewTolerance    time.Duration
	ReplayProtection bool
	ProtectReads     bool
	Debug            bool
}

// Defaults of settings the file may leave out.
const (
	DefaultInterval     = 30 * time.Second
	DefaultMaxTimeout   = 10 * time.Second
	DefaultMaxParallel  = 32
	DefaultHistorySize  = 100
	DefaultMethod       = "GET"
	httpBackendName     = "http"
	supportedAlgorithm  = "sha256"
	defaultExpectStatus = "2xx"
)

// Error is one problem found in a configuration file.
type Error struct {
	File string
	Line int // 0 when the problem has no line, such as an empty file
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Load reads the file at path with ReadFile and parses it. See Parse.
func Load(path string, lookup LookupFunc) (*Config, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data, lookup)
}

// The file as written, before checking. Only the keys here are accepted
// (checkKeys), so every field needs its yaml tag.
type fileConfig struct {
	ScrapeInterval string          `yaml:"scrape_interval"`
	ScrapeTimeout  string          `yaml:"scrape_timeout"`
	MaxParallel    *int            `yaml:"max_parallel"`
	HistorySize    *int            `yaml:"history_size"`
	LogLevel       string          `yaml:"log_level"`
	Prometheus     []fileBackend   `yaml:"prometheus"`
	Locations      []fileLocation  `yaml:"locations"`
	Apps           []fileApp       `yaml:"apps"`
	Discover       []fileDiscover  `yaml:"discover"`
	Authentication *fileAuth       `yaml:"authentication"`
	WebSocket      *fileWebSocket  `yaml:"websocket"`
	Storage        *fileStorage    `yaml:"storage"`
	Reports        *fileReports    `yaml:"reports"`
	ExportWindows  []string        `yaml:"export_windows"`
	Objectives     []fileObjective `yaml:"objectives"`
	controlKeys    `yaml:",inline"`
}

type fileWebSocket struct {
	AllowedOrigins []string `yaml:"allowed_origins"`
}

type fileBackend struct {
	Name             string `yaml:"name"`
	URL              string `yaml:"url"`
	MaxResponseBytes *int64 `yaml:"max_response_bytes"`
	MaxQueryLength   *int   `yaml:"max_query_length"`
	ShardSeries      *int   `yaml:"shard_series"`
	// HTTPClientConfig takes every other key; UnmarshalYAML decodes it
	// with its own defaults and validation.
	HTTPClientConfig promconfig.HTTPClientConfig `yaml:",inline"`
	err              error
}

// UnmarshalYAML decodes name and url, and hands the other keys to
// HTTPClientConfig's own unmarshaler, which sets its defaults (redirects,
// HTTP/2) and validates; an ",inline" field alone would skip both.
func (b *fileBackend) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: a prometheus backend must be a mapping with name and url", n.Line)}}
	}
	rest := *n
	rest.Content = nil
	var own yaml.Node
	own.Kind = yaml.MappingNode
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch n.Content[i].Value {
		case "name", "url", "max_response_bytes", "max_query_length", "shard_series":
			own.Content = append(own.Content, n.Content[i], n.Content[i+1])
		default:
			rest.Content = append(rest.Content, n.Content[i], n.Content[i+1])
		}
	}
	var id struct {
		Name             string `yaml:"name"`
		URL              string `yaml:"url"`
		MaxResponseBytes *int64 `yaml:"max_response_bytes"`
		MaxQueryLength   *int   `yaml:"max_query_length"`
		ShardSeries      *int   `yaml:"shard_series"`
	}
	if err := own.Decode(&id); err != nil {
		return err
	}
	b.Name, b.URL, b.MaxResponseBytes, b.MaxQueryLength, b.ShardSeries = id.Name, id.URL, id.MaxResponseBytes, id.MaxQueryLength, id.ShardSeries
	b.HTTPClientConfig = promconfig.DefaultHTTPClientConfig
	if err := rest.Decode(&b.HTTPClientConfig); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			return err
		}
		// A validation error has no line; keep it for check, which
		// knows the backend's line.
		b.err = err
	}
	return nil
}

type fileLocation struct {
	Name      string   `yaml:"name"`
	Latitude  *float64 `yaml:"latitude"`
	Longitude *float64 `yaml:"longitude"`
	Match     []string `yaml:"match"`
}

type fileApp struct {
	Name               string    `yaml:"name"`
	Location           string    `yaml:"location"`
	Metric             string    `yaml:"metric"`
	ResponseTimeMetric string    `yaml:"response_time_metric"`
	Prometheus         string    `yaml:"prometheus"`
	HTTP               *fileHTTP `yaml:"http"`
	appControlKeys     `yaml:",inline"`
}

type fileHTTP struct {
	URL           string            `yaml:"url"`
	Method        string            `yaml:"method"`
	ExpectStatus  []string          `yaml:"expect_status"`
	BodyContains  string            `yaml:"body_contains"`
	Timeout       string            `yaml:"timeout"`
	TLSSkipVerify bool              `yaml:"tls_skip_verify"`
	Headers       map[string]string `yaml:"headers"`
}

type fileAuth struct {
	HMAC                       *fileHMAC `yaml:"hmac"`
	AllowUnauthenticatedWrites bool      `yaml:"allow_unauthenticated_writes"`
}

type fileHMAC struct {
	Enabled            bool   `yaml:"enabled"`
	Secret             string `yaml:"secret"`
	Algorithm          string `yaml:"algorithm"`
	ClockSkewTolerance *int   `yaml:"clock_skew_tolerance"`
	ReplayProtection   *bool  `yaml:"replay_protection"`
	ProtectReads       bool   `yaml:"protect_reads"`
	Debug              bool   `yaml:"debug"`
	AllowShortSecret   bool   `yaml:"allow_short_secret"`
}

// yamlLine finds the line in the messages of the yaml package
// ("yaml: line 3: ..." and "line 3: ...").
var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// typeNames says in the file's terms what the decoder's messages call by
// their Go type names.
var typeNames = strings.NewReplacer(
	"config.fileConfig", "the settings",
	"config.fileBackend", "a prometheus backend",
	"config.fileLocation", "a location",
	"config.fileApp", "an app",
	"config.fileHTTP", "an http probe",
	"config.fileAuth", "authentication",
	"config.fileHMAC", "authentication.hmac",
	"config.fileWebSocket", "websocket",
	"config.fileReports", "reports",
	"config.fileObjective", "an objective",
	"[]config.fileObjective", "a list of objectives",
	"config.fileLatency", "an objective's latency",
	"config.fileDiscover", "a discovery rule",
	"[]config.fileDiscover", "a list of discovery rules",
	"config.fileService", "a service",
	"config.fileMaintenance", "a maintenance window",
	"[]config.fileService", "a list of services",
	"[]config.fileMaintenance", "a list of maintenance windows",
	"[]config.fileBackend", "a list of prometheus backends",
	"[]config.fileLocation", "a list of locations",
	"[]config.fileApp", "a list of apps",
)

// Parse parses a configuration file's contents; file names it in errors
// and is the directory relative file paths (such as tls_config's ca_file)
// are resolved against. lookup supplies ${VAR}. The error joins every
// problem found, each an *Error.
func Parse(file string, data []byte, lookup LookupFunc) (*Config, error) {
	p := &parser{file: file, skip: make(map[int]bool), seen: make(map[Error]bool)}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		p.yamlError(err)
		return nil, p.err()
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		p.errs = append(p.errs, &Error{File: file, Msg: "the file is empty"})
		return nil, p.err()
	}
	if top := root.Content[0]; top.Kind != yaml.MappingNode {
		p.bad(top.Line, "the file must be a mapping of settings (scrape_interval, prometheus, locations, apps, ...)")
		return nil, p.err()
	}
	expandNodes(&root, lookup, func(line int, format string, args ...any) {
		p.bad(line, format, args...)
		// Do not also complain about the value the variable would have
		// given.
		p.skip[line] = true
	})
	checkKeys(&root, reflect.TypeFor[fileConfig](), "", p.bad)
	p.lines = make(lines)
	collectLines(&root, "", p.lines)
	var raw fileConfig
	if err := root.Decode(&raw); err != nil {
		p.yamlError(err)
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			// The decoder gave up part way (a recursive anchor, excessive
			// aliasing): checking what it left would only add noise.
			return nil, p.err()
		}
	}
	cfg := p.check(&raw, filepath.Dir(file))
	if err := p.err(); err != nil {
		return nil, err
	}
	return cfg, nil
}

type parser struct {
	file  string
	lines lines
	errs  []error
	skip  map[int]bool // lines whose ${VAR} failed
	seen  map[Error]bool
	// warnings are problems that do not make the file invalid.
	warnings []*Error
}

func (p *parser) bad(line int, format string, args ...any) {
	if line > 0 && p.skip[line] {
		return
	}
	e := Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
	if p.seen[e] {
		return // an anchor used twice fails twice the same way
	}
	p.seen[e] = true
	p.errs = append(p.errs, &e)
}

// badAt reports a problem with the element at path.
func (p *parser) badAt(path string, format string, args ...any) {
	p.bad(p.lines.at(path), format, args...)
}

func (p *parser) has(path string) bool {
	_, ok := p.lines[path]
	return ok
}

// yamlError turns the yaml package's errors, which carry their line in the
// text, into *Errors.
func (p *parser) yamlError(err error) {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	for _, m := range msgs {
		m = typeNames.Replace(m)
		if sm := yamlLine.FindStringSubmatch(m); sm != nil {
			line, _ := strconv.Atoi(sm[1])
			p.bad(line, "%s", sm[2])
			continue
		}
		p.bad(0, "%s", strings.TrimPrefix(m, "yaml: "))
	}
}

// err returns every problem, in the order of the file.
func (p *parser) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	slices.SortStableFunc(p.errs, func(a, b error) int {
		return cmp.Compare(a.(*Error).Line, b.(*Error).Line)
	})
	return errors.Join(p.errs...)
}

func (p *parser) check(raw *fileConfig, dir string) *Config {
	cfg := &Config{
		Interval:    DefaultInterval,
		MaxParallel: DefaultMaxParallel,
		HistorySize: DefaultHistorySize,
		LogLevel:    slog.LevelInfo,
	}
	if raw.ScrapeInterval != "" {
		if d, ok := p.duration("scrape_interval", raw.ScrapeInterval); ok {
			if d < availmon.MinInterval || d > availmon.MaxInterval {
				p.badAt("scrape_interval", "scrape_interval %s is outside [1s, 1h]", raw.ScrapeInterval)
			} else {
				cfg.Interval = d
			}
		}
	}
	cfg.Timeout = min(DefaultMaxTimeout, cfg.Interval)
	if raw.ScrapeTimeout != "" {
		if d, ok := p.duration("scrape_timeout", raw.ScrapeTimeout); ok {
			switch {
			case d <= 0:
				p.badAt("scrape_timeout", "scrape_timeout must be more than 0")
			case d > cfg.Interval:
				p.badAt("scrape_timeout", "scrape_timeout %s is longer than scrape_interval %s", raw.ScrapeTimeout, model.Duration(cfg.Interval))
			default:
				cfg.Timeout, cfg.TimeoutSet = d, true
			}
		}
	}
	if raw.MaxParallel != nil {
		if *raw.MaxParallel < 1 {
			p.badAt("max_parallel", "max_parallel must be at least 1, not %d", *raw.MaxParallel)
		} else {
			cfg.MaxParallel = *raw.MaxParallel
		}
	}
	if raw.HistorySize != nil {
		if *raw.HistorySize < 1 {
			p.badAt("history_size", "history_size must be at least 1, not %d", *raw.HistorySize)
		} else {
			cfg.HistorySize = *raw.HistorySize
		}
	}
	switch raw.LogLevel {
	case "", "info":
	case "debug":
		cfg.LogLevel = slog.LevelDebug
	case "warn":
		cfg.LogLevel = slog.LevelWarn
	case "error":
		cfg.LogLevel = slog.LevelError
	default:
		p.badAt("log_level", "log_level %q is not one of debug, info, warn, error", raw.LogLevel)
	}

	cfg.Prometheus = p.checkBackends(raw.Prometheus, dir)
	cfg.Locations = p.checkLocations(raw.Locations)
	cfg.Apps = p.checkApps(raw.Apps, cfg)
	p.checkMatch(raw.Locations)
	cfg.Discover = p.checkDiscover(raw.Discover, cfg)
	p.checkControls(raw, cfg)
	if raw.Authentication != nil {
		p.checkAuth(raw.Authentication, cfg)
	}
	if raw.WebSocket != nil {
		for _, o := range raw.WebSocket.AllowedOrigins {
			if _, err := path.Match(o, ""); err != nil || o == "" {
				p.badAt("websocket.allowed_origins", "websocket.allowed_origins: %q is not a host pattern such as status.example.com or *.example.com", o)
				continue
			}
			cfg.WSOriginPatterns = append(cfg.WSOriginPatterns, o)
		}
	}
	cfg.Storage = p.checkStorage(raw.Storage)
	cfg.Reports = p.checkReports(raw.Reports)
	cfg.ExportWindows = p.checkExportWindows(raw.ExportWindows)
	cfg.Objectives = p.checkObjectives(raw.Objectives, cfg)
	cfg.Warnings = p.warnings
	return cfg
}

// duration parses Prometheus duration syntax (500ms, 30s, 1h30m).
func (p *parser) duration(path, s string) (time.Duration, bool) {
	d, err := model.ParseDuration(s)
	if err != nil {
		p.badAt(path, "%s: %q is not a duration (write it like 500ms, 30s, 5m or 1h30m)", path, s)
		return 0, false
	}
	return time.Duration(d), true
}

// uniqueName reports a missing or repeated name of the i-th item of a kind
// at path, and records the line where each name is first given.
func (p *parser) uniqueName(kind, path string, i int, name string, seen map[string]int) {
	switch {
	case strings.TrimSpace(name) == "":
		p.badAt(path, "%s %d has no name", kind, i+1)
	case hasKey(seen, name):
		p.badAt(path+".name", "%s %q is listed twice (first on line %d)", kind, name, seen[name])
	default:
		seen[name] = p.lines.at(path + ".name")
	}
}

func (p *parser) checkBackends(raw []fileBackend, dir string) []Prometheus {
	out := make([]Prometheus, 0, len(raw))
	seen := make(map[string]int)
	for i, b := range raw {
		path := fmt.Sprintf("prometheus[%d]", i)
		if b.Name == httpBackendName {
			p.badAt(path+".name", "the backend name %q is reserved for the apps with http: probes", b.Name)
		} else {
			p.uniqueName("prometheus backend", path, i, b.Name, seen)
		}
		if err := checkURL(b.URL); err != nil {
			p.badAt(path+".url", "prometheus backend %q: url: %v", b.Name, err)
		}
		if b.err != nil {
			p.badAt(path, "prometheus backend %q: %v", b.Name, b.err)
		}
		var maxBytes int64
		if b.MaxResponseBytes != nil {
			if maxBytes = *b.MaxResponseBytes; maxBytes < 1 {
				p.badAt(path+".max_response_bytes", "prometheus backend %q: max_response_bytes must be at least 1, not %d", b.Name, maxBytes)
			}
		}
		maxQuery := p.maxQueryLength(path, b)
		hc := b.HTTPClientConfig
		hc.SetDirectory(dir)
		out = append(out, Prometheus{Name: b.Name, URL: b.URL, HTTPClientConfig: hc, MaxResponseBytes: maxBytes,
			MaxQueryLength: maxQuery, ShardSeries: p.shardSeries(path, b)})
	}
	return out
}

func checkURL(s string) error {
	if s == "" {
		return errors.New("missing")
	}
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http:// or https:// URL", s)
	}
	return nil
}

func (p *parser) checkLocations(raw []fileLocation) []availmon.Location {
	out := make([]availmon.Location, 0, len(raw))
	seen := make(map[string]int)
	for i, l := range raw {
		path := fmt.Sprintf("locations[%d]", i)
		p.uniqueName("location", path, i, l.Name, seen)
		loc := availmon.Location{Name: l.Name, Match: l.Match}
		coordinate := func(key string, v *float64, limit float64) float64 {
			if v == nil {
				p.badAt(path, "location %q has no %s", l.Name, key)
				return 0
			}
			if !(*v >= -limit && *v <= limit) { // also refuses NaN
				p.badAt(path+"."+key, "location %q: %s %v is outside [%v, %v]", l.Name, key, *v, -limit, limit)
			}
			return *v
		}
		loc.Latitude = coordinate("latitude", l.Latitude, 90)
		loc.Longitude = coordinate("longitude", l.Longitude, 180)
		out = append(out, loc)
	}
	return out
}

func (p *parser) checkApps(raw []fileApp, cfg *Config) []App {
	locs := make(map[string]bool, len(cfg.Locations))
	for _, l := range cfg.Locations {
		locs[l.Name] = true
	}
	backends := make(map[string]bool, len(cfg.Prometheus))
	for _, b := range cfg.Prometheus {
		backends[b.Name] = true
	}
	out := make([]App, 0, len(raw))
	seen := make(map[string]int)
	for i, a := range raw {
		path := fmt.Sprintf("apps[%d]", i)
		p.uniqueName("app", path, i, a.Name, seen)
		switch {
		case a.Location == "":
			p.badAt(path, "app %q has no location", a.Name)
		case !locs[a.Location]:
			p.badAt(path+".location", "app %q: unknown location %q (locations: %s)", a.Name, a.Location, listNames(locs))
		}
		app := App{Name: a.Name, Location: a.Location}
		hasMetric, hasHTTP := p.has(path+".metric"), p.has(path+".http")
		switch {
		case hasMetric && hasHTTP:
			p.badAt(path+".http", "app %q has both metric and http; an app is checked by exactly one of them", a.Name)
		case !hasMetric && !hasHTTP:
			p.badAt(path, "app %q has neither metric nor http; give it exactly one of them", a.Name)
		case hasMetric:
			app.Metric, app.ResponseTimeMetric = a.Metric, a.ResponseTimeMetric
			if strings.TrimSpace(a.Metric) == "" {
				p.badAt(path+".metric", "app %q: metric is empty", a.Name)
			} else {
				p.checkExpr(path+".metric", a.Name, a.Metric)
			}
			if p.has(path + ".response_time_metric") {
				if strings.TrimSpace(a.ResponseTimeMetric) == "" {
					p.badAt(path+".response_time_metric", "app %q: response_time_metric is empty", a.Name)
				} else {
					p.checkExpr(path+".response_time_metric", a.Name, a.ResponseTimeMetric)
				}
			}
			switch {
			case a.Prometheus != "":
				if !backends[a.Prometheus] {
					p.badAt(path+".prometheus", "app %q: unknown prometheus backend %q (backends: %s)", a.Name, a.Prometheus, listNames(backends))
				}
				app.Prometheus = a.Prometheus
			case len(cfg.Prometheus) == 1:
				app.Prometheus = cfg.Prometheus[0].Name
			case len(cfg.Prometheus) == 0:
				p.badAt(path+".metric", "app %q has a metric but no prometheus backend is configured", a.Name)
			default:
				p.badAt(path, "app %q: name its backend with prometheus: (one of %s)", a.Name, listNames(backends))
			}
		case hasHTTP:
			for _, key := range []string{"prometheus", "response_time_metric"} {
				if p.has(path + "." + key) {
					p.badAt(path+"."+key, "app %q: %s applies to metric apps, not to http probes", a.Name, key)
				}
			}
			app.HTTP = p.checkHTTP(path+".http", a.Name, a.HTTP, cfg.Timeout)
		}
		out = append(out, app)
	}
	return out
}

var (
	statusCode  = regexp.MustCompile(`^[1-5][0-9][0-9]$`)
	statusClass = regexp.MustCompile(`^[1-5][xX][xX]$`)
)

func (p *parser) checkHTTP(path, app string, raw *fileHTTP, timeout time.Duration) *httpprobe.Probe {
	if raw == nil {
		p.badAt(path, "app %q: http needs at least a url", app)
		return nil
	}
	c := &httpprobe.Probe{
		URL:           raw.URL,
		Method:        strings.ToUpper(cmp.Or(raw.Method, DefaultMethod)),
		ExpectStatus:  raw.ExpectStatus,
		BodyContains:  raw.BodyContains,
		Timeout:       timeout,
		TLSSkipVerify: raw.TLSSkipVerify,
		Headers:       raw.Headers,
	}
	if err := checkURL(raw.URL); err != nil {
		p.badAt(path+".url", "app %q: http url: %v", app, err)
	}
	if !validToken(c.Method) {
		p.badAt(path+".method", "app %q: http method %q is not an HTTP method such as GET or HEAD", app, raw.Method)
	}
	if raw.ExpectStatus != nil { // nil: left out; [] is written and wrong
		if len(raw.ExpectStatus) == 0 {
			p.badAt(path+".expect_status", "app %q: expect_status is empty; leave it out for the default [\"2xx\"]", app)
		}
		for i, s := range raw.ExpectStatus {
			if !statusCode.MatchString(s) && !statusClass.MatchString(s) {
				p.badAt(fmt.Sprintf("%s.expect_status[%d]", path, i),
					"app %q: expect_status %q is neither a status code (100-599) nor a class (1xx-5xx)", app, s)
			}
		}
		c.ExpectStatus = make([]string, len(raw.ExpectStatus))
		for i, s := range raw.ExpectStatus {
			c.ExpectStatus[i] = strings.ToLower(s)
		}
	} else {
		c.ExpectStatus = []string{defaultExpectStatus}
	}
	if raw.Timeout != "" {
		if d, ok := p.duration(path+".timeout", raw.Timeout); ok {
			switch {
			case d <= 0:
				p.badAt(path+".timeout", "app %q: http timeout must be more than 0", app)
			case d > timeout:
				p.badAt(path+".timeout", "app %q: http timeout %s is longer than scrape_timeout %s, which would cut it short", app, raw.Timeout, model.Duration(timeout))
			default:
				c.Timeout = d
			}
		}
	}
	for name, v := range raw.Headers {
		if !validToken(name) {
			p.badAt(path+".headers."+name, "app %q: %q is not a valid HTTP header name", app, name)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			p.badAt(path+".headers."+name, "app %q: header %s: the value must not contain line breaks or NUL", app, name)
		}
	}
	return c
}

// validToken reports whether name is an RFC 9110 token, as methods and
// header names are.
func validToken(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range []byte(name) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

func (p *parser) checkAuth(raw *fileAuth, cfg *Config) {
	if raw.HMAC != nil {
		cfg.HMAC = p.checkHMAC(raw.HMAC)
	}
	cfg.AllowUnauthenticatedWrites = raw.AllowUnauthenticatedWrites
	if raw.AllowUnauthenticatedWrites && raw.HMAC != nil && raw.HMAC.Enabled {
		p.badAt("authentication.allow_unauthenticated_writes", "authentication.allow_unauthenticated_writes: true contradicts authentication.hmac.enabled: true (with hmac, writes are signed); keep one")
	}
}

func (p *parser) checkHMAC(raw *fileHMAC) *HMAC {
	const path = "authentication.hmac"
	if !raw.Enabled {
		return nil
	}
	h := &HMAC{
		Secret:           []byte(raw.Secret),
		SkewTolerance:    hmac.DefaultSkew,
		ReplayProtection: raw.ReplayProtection == nil || *raw.ReplayProtection,
		ProtectReads:     raw.ProtectReads,
		Debug:            raw.Debug,
	}
	switch {
	case raw.Secret == "":
		p.badAt(path+".secret", "authentication.hmac.secret is required when hmac is enabled (e.g. secret: ${AVAILMON_HMAC_SECRET})")
	case hmac.CheckSecret(h.Secret, raw.AllowShortSecret) != nil:
		p.badAt(path+".secret", "authentication.hmac.secret is %d bytes; it must be at least %d bytes (allow_short_secret: true is for tests only)", len(raw.Secret), hmac.MinSecretLen)
	}
	if raw.Algorithm != "" && !strings.EqualFold(raw.Algorithm, supportedAlgorithm) {
		p.badAt(path+".algorithm", "authentication.hmac.algorithm %q is not supported; only sha256 is", raw.Algorithm)
	}
	if raw.ClockSkewTolerance != nil {
		if *raw.ClockSkewTolerance <= 0 {
			p.badAt(path+".clock_skew_tolerance", "authentication.hmac.clock_skew_tolerance must be a number of seconds more than 0, not %d", *raw.ClockSkewTolerance)
		} else {
			h.SkewTolerance = time.Duration(*raw.ClockSkewTolerance) * time.Second
		}
	}
	return h
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

func listNames(set map[string]bool) string {
	if len(set) == 0 {
		return "none configured"
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
