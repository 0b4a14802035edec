package config

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	promconfig "github.com/prometheus/common/config"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/httpprobe"
	"github.com/availmon/availmon/promsource"
)

const testSecret = "0123456789abcdef0123456789abcdef" // 32 bytes

func env(vars map[string]string) LookupFunc {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

var goodEnv = env(map[string]string{
	"PROM_URL":             "https://prom.example.com:9090",
	"PROM_PASSWORD":        "p#ss: $word", // YAML-special characters stay a value
	"AVAILMON_HMAC_SECRET": testSecret,
	"TOKEN":                "t0k3n",
})

func TestLoadGood(t *testing.T) {
	cfg, err := Load("testdata/good.yaml", goodEnv)
	if err != nil {
		t.Fatal(err)
	}
	secured := promconfig.DefaultHTTPClientConfig
	secured.BasicAuth = &promconfig.BasicAuth{Username: "availmon", Password: "p#ss: $word"}
	secured.TLSConfig.InsecureSkipVerify = true
	secured.SetDirectory("testdata")
	homepage := &httpprobe.Probe{
		URL:           "https://example.com/healthz",
		Method:        "HEAD",
		ExpectStatus:  []string{"200", "3xx"},
		BodyContains:  "ok",
		Timeout:       5 * time.Second,
		TLSSkipVerify: true,
		Headers:       map[string]string{"Authorization": "Bearer t0k3n"},
	}
	// Defaults: GET, 2xx, scrape_timeout.
	landing := &httpprobe.Probe{URL: "http://127.0.0.1:8081/", Method: "GET", ExpectStatus: []string{"2xx"}, Timeout: 15 * time.Second}
	want := &Config{
		Interval:    time.Minute,
		Timeout:     15 * time.Second,
		TimeoutSet:  true,
		MaxParallel: 8,
		HistorySize: 50,
		LogLevel:    slog.LevelDebug,
		Storage:     Storage{Path: DefaultStoragePath, SaveInterval: time.Minute, Backfill: true, Retention: availmon.DefaultRetention},
		Prometheus: []Prometheus{
			{Name: "main", URL: "http://127.0.0.1:9090", HTTPClientConfig: promconfig.DefaultHTTPClientConfig},
			{Name: "secured", URL: "https://prom.example.com:9090", HTTPClientConfig: secured},
		},
		Locations: []availmon.Location{
			{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818},
			{Name: "London", Latitude: 51.5072, Longitude: -0.1276},
		},
		Apps: []App{
			{Name: "checkout", Location: "Tel Aviv", Metric: `up{job="checkout"}`, Prometheus: "main",
				ResponseTimeMetric: `probe_duration_seconds{job="checkout"}`},
			{Name: "search", Location: "London", Metric: `sum(up{job="search", cost="$5"}) > bool 0`, Prometheus: "secured"},
			{Name: "homepage", Location: "London", HTTP: homepage},
			{Name: "landing", Location: "London", HTTP: landing},
		},
		HMAC: &HMAC{Secret: []byte(testSecret), SkewTolerance: 120 * time.Second, ProtectReads: true},
	}
	if diff := cmp.Diff(want, cfg, ignoreProxyFunc); diff != "" {
		t.Errorf("Config (-want +got):\n%s", diff)
	}

	opts, err := cfg.Options(nil)
	if err != nil {
		t.Fatal(err)
	}
	wantOpts := availmon.Options{
		Interval:    time.Minute,
		Timeout:     15 * time.Second,
		MaxParallel: 8,
		HistorySize: 50,
		LogLevel:    slog.LevelDebug,
		Locations:   want.Locations,
		Backends: []availmon.Backend{
			{Name: "main", URL: "http://127.0.0.1:9090", BatchSize: promsource.BatchSize},
			{Name: "secured", URL: "https://prom.example.com:9090", BatchSize: promsource.BatchSize},
			{Name: "http", BatchSize: 1},
		},
		Apps: []availmon.App{
			{Name: "checkout", Location: "Tel Aviv", Metric: `up{job="checkout"}`, Backend: "main",
				ResponseTimeMetric: `probe_duration_seconds{job="checkout"}`},
			{Name: "search", Location: "London", Metric: `sum(up{job="search", cost="$5"}) > bool 0`, Backend: "secured"},
			{Name: "homepage", Location: "London", Backend: "http", Settings: homepage},
			{Name: "landing", Location: "London", Backend: "http", Settings: landing},
		},
		ProtectReads: true,
		Retention:    availmon.DefaultRetention,
	}
	if diff := cmp.Diff(wantOpts, opts, ignoreBuilt); diff != "" {
		t.Errorf("Options (-want +got):\n%s", diff)
	}
	for _, b := range opts.Backends {
		var ok bool
		if b.Name == "http" {
			_, ok = b.Source.(*httpprobe.Source)
		} else {
			_, ok = b.Source.(*promsource.Source)
		}
		if !ok {
			t.Errorf("backend %q: Source is %T", b.Name, b.Source)
		}
	}
	if _, ok := opts.Authenticator.(*hmac.Verifier); !ok {
		t.Errorf("Authenticator is %T, want *hmac.Verifier", opts.Authenticator)
	}
	if _, err := availmon.New(opts); err != nil {
		t.Errorf("availmon.New refuses the options: %v", err)
	}
}

// ignoreProxyFunc skips the proxy function prometheus/common caches.
var ignoreProxyFunc = cmpopts.IgnoreUnexported(promconfig.ProxyConfig{})

// ignoreBuilt leaves out what Options constructs rather than copies.
var ignoreBuilt = cmp.Options{
	cmpopts.IgnoreFields(availmon.Backend{}, "Source"),
	cmpopts.IgnoreFields(availmon.Options{}, "Authenticator"),
}

// A minimal file to build the bad ones from; the line numbers matter.
func base(extra ...string) string {
	return strings.Join(append([]string{
		"prometheus:", // 1
		"  - name: main",
		"    url: http://127.0.0.1:9090",
		"locations:",
		"  - name: Tel Aviv", // 5
		"    latitude: 32",
		"    longitude: 34",
		"apps:",
		"  - name: checkout",
		"    location: Tel Aviv", // 10
		"    metric: up",
	}, extra...), "\n") + "\n"
}

func TestWebSocketOrigins(t *testing.T) {
	cfg, err := Parse("ws.yaml", []byte(base("websocket:", "  allowed_origins: [status.example.com, \"*.example.org\"]")), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"status.example.com", "*.example.org"}, cfg.WSOriginPatterns); d != "" {
		t.Errorf("WSOriginPatterns (-want +got):\n%s", d)
	}
	opts, err := cfg.Options(nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(cfg.WSOriginPatterns, opts.WSOriginPatterns); d != "" {
		t.Errorf("Options.WSOriginPatterns (-want +got):\n%s", d)
	}
}

// max_response_bytes is a backend's own key, not an HTTP client setting.
func TestMaxResponseBytes(t *testing.T) {
	yaml := strings.Replace(base(), "    url: http://127.0.0.1:9090", "    url: http://127.0.0.1:9090\n    max_response_bytes: 1048576\n    basic_auth:\n      username: u", 1)
	cfg, err := Parse("limit.yaml", []byte(yaml), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Prometheus[0]; got.MaxResponseBytes != 1<<20 || got.HTTPClientConfig.BasicAuth == nil {
		t.Errorf("backend = %+v, want max_response_bytes 1048576 beside basic_auth", got)
	}
	if _, err := cfg.Options(nil); err != nil {
		t.Fatal(err)
	}
}

func TestDefaults(t *testing.T) {
	cfg, err := Parse("min.yaml", []byte(base()), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Interval:    30 * time.Second,
		Timeout:     10 * time.Second,
		MaxParallel: 32,
		HistorySize: 100,
		LogLevel:    slog.LevelInfo,
		Storage:     Storage{Path: DefaultStoragePath, SaveInterval: time.Minute, Backfill: true, Retention: availmon.DefaultRetention},
		Prometheus:  []Prometheus{{Name: "main", URL: "http://127.0.0.1:9090", HTTPClientConfig: promconfig.DefaultHTTPClientConfig}},
		Locations:   []availmon.Location{{Name: "Tel Aviv", Latitude: 32, Longitude: 34}},
		// The only backend is filled in.
		Apps: []App{{Name: "checkout", Location: "Tel Aviv", Metric: "up", Prometheus: "main"}},
	}
	if diff := cmp.Diff(want, cfg, ignoreProxyFunc); diff != "" {
		t.Errorf("Config (-want +got):\n%s", diff)
	}

	cfg, err = Parse("short.yaml", []byte("scrape_interval: 5s\n"+base()), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Timeout != 5*time.Second {
		t.Errorf("scrape_timeout defaults to %s with a 5s interval, want 5s", cfg.Timeout)
	}
	// The monitor is given no timeout, so that its own follows the
	// interval, also one set at run time.
	opts, err := cfg.Options(nil)
	if err != nil || opts.Timeout != 0 {
		t.Errorf("Options without scrape_timeout: Timeout %s, %v; want 0", opts.Timeout, err)
	}
}

func TestExpand(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, err string
	}{
		{name: "var", in: "a${X}b", want: "a1b"},
		{name: "escape", in: "cost $$5", want: "cost $5"},
		{name: "escaped var", in: "$${X}", want: "${X}"},
		{name: "lone dollar", in: "a $ b$", want: "a $ b$"},
		{name: "empty value", in: "[${EMPTY}]", want: "[]"},
		{name: "unset", in: "${NOPE}", err: "environment variable NOPE is not set"},
		{name: "unclosed", in: "${X", err: "no closing }"},
		{name: "bad name", in: "${1X}", err: "not a valid environment variable name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := expand(tc.in, env(map[string]string{"X": "1", "EMPTY": ""}))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("expand(%q) = %q, %v; want error containing %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("expand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

// An expanded plain value takes the type its text has, as if written.
func TestExpandTypes(t *testing.T) {
	cfg, err := Parse("t.yaml", []byte("max_parallel: ${N}\nscrape_interval: ${I}\n"+base()),
		env(map[string]string{"N": "7", "I": "2m"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxParallel != 7 || cfg.Interval != 2*time.Minute {
		t.Errorf("max_parallel %d, interval %s; want 7, 2m", cfg.MaxParallel, cfg.Interval)
	}
}

// Anchors, aliases and merge keys work, and what they bring in is checked
// as strictly as what is written out.
func TestAnchors(t *testing.T) {
	doc := base(
		"  - &probe", // 12
		"    name: web",
		"    location: Tel Aviv",
		"    http: {url: 'http://127.0.0.1:8081/'}",
		"  - <<: *probe", // 16
		"    name: web2",
	)
	cfg, err := Parse("a.yaml", []byte(doc), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(cfg.Apps); got != 3 || cfg.Apps[2].Name != "web2" || cfg.Apps[2].HTTP == nil {
		t.Fatalf("apps %+v; want web2 to inherit the probe", cfg.Apps)
	}

	doc = base(
		"  - &probe", // 12
		"    name: web",
		"    location: Tel Aviv",
		"    http: {url: 'http://127.0.0.1:8081/'}",
		"    colour: blue", // 16
		"  - <<: *probe",
		"    name: web2",
	)
	_, err = Parse("a.yaml", []byte(doc), env(nil))
	if err == nil || !strings.Contains(err.Error(), `a.yaml:16: unknown key "colour" in apps[1]`) {
		t.Errorf("error %v; want the unknown key on line 16", err)
	}
	// Self-reference and exponential aliasing are refused, and quickly:
	// the walks that follow aliases have a budget.
	laughs := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for c := 'b'; c <= 'j'; c++ {
		laughs += fmt.Sprintf("%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", c, c, c-1, c-1, c-1, c-1, c-1, c-1, c-1, c-1, c-1, c-1)
	}
	// Without the budget the last document would take hours (10^10
	// visits) and the test would hit go test's timeout; no clock is read.
	for _, doc := range []string{"locations: &x [*x]\n", "locations: &x [*x, *x, *x, *x]\n", laughs} {
		if _, err := Parse("a.yaml", []byte(doc), env(nil)); err == nil {
			t.Errorf("accepted:\n%s", doc)
		}
	}
}

func TestBad(t *testing.T) {
	for _, tc := range []struct {
		name string
		yaml string
		env  map[string]string
		want []string // each must appear in the error, in this order
	}{
		{
			name: "unknown top-level key",
			yaml: base("scrape_intervall: 30s"),
			want: []string{`bad.yaml:12: unknown key "scrape_intervall"`},
		},
		{
			name: "unknown key in a location",
			yaml: strings.Replace(base(), "    longitude: 34", "    longitude: 34\n    altitude: 5", 1),
			want: []string{`bad.yaml:8: unknown key "altitude" in locations[0] (known keys: latitude, longitude, match, name)`},
		},
		{
			name: "unknown key in a prometheus client setting",
			yaml: strings.Replace(base(), "    url: http://127.0.0.1:9090", "    url: http://127.0.0.1:9090\n    basic_auth:\n      user: x", 1),
			want: []string{`bad.yaml:5: unknown key "user" in prometheus[0].basic_auth`},
		},
		{
			name: "duplicate app",
			yaml: base("  - name: checkout", "    location: Tel Aviv", "    metric: up"),
			want: []string{`bad.yaml:12: app "checkout" is listed twice (first on line 9)`},
		},
		{
			name: "duplicate location",
			yaml: strings.Replace(base(), "apps:", "  - name: Tel Aviv\n    latitude: 1\n    longitude: 1\napps:", 1),
			want: []string{`bad.yaml:8: location "Tel Aviv" is listed twice (first on line 5)`},
		},
		{
			name: "duplicate backend",
			yaml: strings.Replace(base(), "locations:", "  - name: main\n    url: http://127.0.0.1:9091\nlocations:", 1),
			want: []string{`bad.yaml:4: prometheus backend "main" is listed twice (first on line 2)`},
		},
		{
			name: "unknown location",
			yaml: strings.Replace(base(), "    location: Tel Aviv", "    location: Haifa", 1),
			want: []string{`bad.yaml:10: app "checkout": unknown location "Haifa" (locations: Tel Aviv)`},
		},
		{
			name: "unknown backend",
			yaml: base("    prometheus: thanos"),
			want: []string{`bad.yaml:12: app "checkout": unknown prometheus backend "thanos" (backends: main)`},
		},
		{
			name: "no backend named among two",
			yaml: strings.Replace(base(), "locations:", "  - name: other\n    url: http://127.0.0.1:9091\nlocations:", 1),
			want: []string{`bad.yaml:11: app "checkout": name its backend with prometheus: (one of main, other)`},
		},
		{
			name: "latitude 91",
			yaml: strings.Replace(base(), "latitude: 32", "latitude: 91", 1),
			want: []string{`bad.yaml:6: location "Tel Aviv": latitude 91 is outside [-90, 90]`},
		},
		{
			name: "longitude -181",
			yaml: strings.Replace(base(), "longitude: 34", "longitude: -181", 1),
			want: []string{`bad.yaml:7: location "Tel Aviv": longitude -181 is outside [-180, 180]`},
		},
		{
			name: "latitude missing",
			yaml: strings.Replace(base(), "    latitude: 32\n", "", 1),
			want: []string{`bad.yaml:5: location "Tel Aviv" has no latitude`},
		},
		{
			name: "coordinate not a number",
			yaml: strings.Replace(base(), "latitude: 32", "latitude: north", 1),
			want: []string{"bad.yaml:6: cannot unmarshal !!str `north` into float64"},
		},
		{
			name: "bad interval syntax",
			yaml: "scrape_interval: 30 seconds\n" + base(),
			want: []string{`bad.yaml:1: scrape_interval: "30 seconds" is not a duration`},
		},
		{
			name: "interval out of range",
			yaml: "scrape_interval: 2h\n" + base(),
			want: []string{`bad.yaml:1: scrape_interval 2h is outside [1s, 1h]`},
		},
		{
			name: "timeout longer than interval",
			yaml: "scrape_interval: 10s\nscrape_timeout: 20s\n" + base(),
			want: []string{`bad.yaml:2: scrape_timeout 20s is longer than scrape_interval 10s`},
		},
		{
			name: "bad log level",
			yaml: "log_level: verbose\n" + base(),
			want: []string{`bad.yaml:1: log_level "verbose" is not one of debug, info, warn, error`},
		},
		{
			name: "max_response_bytes zero",
			yaml: strings.Replace(base(), "    url: http://127.0.0.1:9090", "    url: http://127.0.0.1:9090\n    max_response_bytes: 0", 1),
			want: []string{`bad.yaml:4: prometheus backend "main": max_response_bytes must be at least 1, not 0`},
		},
		{
			name: "max_response_bytes not a number",
			yaml: strings.Replace(base(), "    url: http://127.0.0.1:9090", "    url: http://127.0.0.1:9090\n    max_response_bytes: 16MiB", 1),
			want: []string{`bad.yaml:4: cannot unmarshal !!str ` + "`16MiB`" + ` into int64`},
		},
		{
			name: "max_parallel zero",
			yaml: "max_parallel: 0\n" + base(),
			want: []string{`bad.yaml:1: max_parallel must be at least 1, not 0`},
		},
		{
			name: "unset variable",
			yaml: strings.Replace(base(), "http://127.0.0.1:9090", "${PROM_URL}", 1),
			want: []string{`bad.yaml:3: environment variable PROM_URL is not set (write $$ for a literal $)`},
		},
		{
			name: "bad yaml",
			yaml: base("  - name: web: site"),
			want: []string{`bad.yaml:12: mapping values are not allowed in this context`},
		},
		{
			name: "duplicate key",
			yaml: strings.Replace(base(), "    metric: up", "    metric: up\n    metric: down", 1),
			want: []string{`bad.yaml:12: mapping key "metric" already defined at line 11`},
		},
		{
			name: "both metric and http",
			yaml: base("    http:", "      url: http://127.0.0.1:8081/"),
			want: []string{`bad.yaml:12: app "checkout" has both metric and http; an app is checked by exactly one of them`},
		},
		{
			name: "neither metric nor http",
			yaml: strings.Replace(base(), "    metric: up\n", "", 1),
			want: []string{`bad.yaml:9: app "checkout" has neither metric nor http; give it exactly one of them`},
		},
		{
			name: "three bad expressions, all reported",
			yaml: base(
				"  - name: unclosed", "    location: Tel Aviv", `    metric: 'up{job="a"'`, // 14
				"  - name: range", "    location: Tel Aviv", "    metric: rate(x[5m])", "    response_time_metric: x[5m]", // 18
				"  - name: multi-line", "    location: Tel Aviv", "    metric: |", "      sum(", `        up) + "x"`, // 21
			),
			want: []string{
				`bad.yaml:14: app "unclosed": metric: 1:11: parse error: unexpected end of input inside braces`,
				`bad.yaml:18: app "range": response_time_metric: 1:1: the expression returns a range vector; it must return an instant vector or a scalar`,
				`bad.yaml:21: app "multi-line": metric: 2:9: parse error: binary expression must contain only scalar and instant vector types`,
			},
		},
		{
			name: "bad expect_status",
			yaml: base("  - name: web", "    location: Tel Aviv", "    http:", "      url: http://127.0.0.1:8081/",
				`      expect_status: [200, "2xx", 600, "6xx", ok]`),
			want: []string{
				`bad.yaml:16: app "web": expect_status "600" is neither a status code (100-599) nor a class (1xx-5xx)`,
				`bad.yaml:16: app "web": expect_status "6xx" is neither`,
				`bad.yaml:16: app "web": expect_status "ok" is neither`,
			},
		},
		{
			name: "empty expect_status",
			yaml: base("  - name: web", "    location: Tel Aviv", "    http:", "      url: http://127.0.0.1:8081/",
				"      expect_status: []"),
			want: []string{`bad.yaml:16: app "web": expect_status is empty`},
		},
		{
			name: "http without url",
			yaml: base("  - name: web", "    location: Tel Aviv", "    http:", "      method: GET"),
			want: []string{`bad.yaml:14: app "web": http url: missing`},
		},
		{
			name: "http with prometheus",
			yaml: base("  - name: web", "    location: Tel Aviv", "    prometheus: main", "    http:", "      url: http://127.0.0.1:8081/"),
			want: []string{`bad.yaml:14: app "web": prometheus applies to metric apps, not to http probes`},
		},
		{
			name: "http timeout longer than scrape_timeout",
			yaml: base("  - name: web", "    location: Tel Aviv", "    http:", "      url: http://127.0.0.1:8081/", "      timeout: 1m"),
			want: []string{`bad.yaml:16: app "web": http timeout 1m is longer than scrape_timeout 10s`},
		},
		{
			name: "short secret",
			yaml: base("authentication:", "  hmac:", "    enabled: true", "    secret: ${S}"),
			env:  map[string]string{"S": "too-short"},
			want: []string{`bad.yaml:15: authentication.hmac.secret is 9 bytes; it must be at least 32 bytes`},
		},
		{
			name: "bad websocket origin pattern",
			yaml: base("websocket:", "  allowed_origins: [status.example.com, \"[\"]"),
			want: []string{`bad.yaml:13: websocket.allowed_origins: "[" is not a host pattern such as status.example.com or *.example.com`},
		},
		{
			name: "unauthenticated writes with hmac",
			yaml: base("authentication:", "  allow_unauthenticated_writes: true", "  hmac:", "    enabled: true", "    secret: "+testSecret),
			want: []string{`bad.yaml:13: authentication.allow_unauthenticated_writes: true contradicts authentication.hmac.enabled: true`},
		},
		{
			name: "missing secret",
			yaml: base("authentication:", "  hmac:", "    enabled: true"),
			want: []string{`bad.yaml:13: authentication.hmac.secret is required`},
		},
		{
			name: "bad algorithm and tolerance",
			yaml: base("authentication:", "  hmac:", "    enabled: true", "    secret: "+testSecret,
				"    algorithm: sha1", "    clock_skew_tolerance: 0"),
			want: []string{
				`bad.yaml:16: authentication.hmac.algorithm "sha1" is not supported; only sha256 is`,
				`bad.yaml:17: authentication.hmac.clock_skew_tolerance must be a number of seconds more than 0, not 0`,
			},
		},
		{
			name: "bad backend url",
			yaml: strings.Replace(base(), "http://127.0.0.1:9090", "127.0.0.1:9090", 1),
			want: []string{`bad.yaml:3: prometheus backend "main": url:`},
		},
		{
			name: "invalid client settings",
			yaml: strings.Replace(base(), "    url: http://127.0.0.1:9090", "    url: http://127.0.0.1:9090\n    bearer_token: a\n    bearer_token_file: b", 1),
			want: []string{`bad.yaml:2: prometheus backend "main": at most one of bearer_token & bearer_token_file must be configured`},
		},
		{
			name: "reserved backend name",
			yaml: strings.Replace(base(), "  - name: main", "  - name: http", 1),
			want: []string{`bad.yaml:2: the backend name "http" is reserved`},
		},
		{
			// The backend list names each backend once, even when the file
			// repeats one.
			name: "app without backend, backend listed twice",
			yaml: strings.Replace(base(), "locations:", "  - name: main\n    url: http://127.0.0.1:9091\n  - name: other\n    url: http://127.0.0.1:9092\nlocations:", 1),
			want: []string{`(one of main, other)`},
		},
		{
			name: "wrong shape",
			yaml: strings.Replace(base(), "locations:\n  - name: Tel Aviv", "locations:\n  - [Tel Aviv]\n  - name: Tel Aviv", 1),
			want: []string{"bad.yaml:5: cannot unmarshal !!seq into a location"},
		},
		{
			name: "not a mapping",
			yaml: "- a\n- b\n",
			want: []string{`bad.yaml:1: the file must be a mapping of settings`},
		},
		{
			name: "empty",
			yaml: "# nothing\n",
			want: []string{`bad.yaml: the file is empty`},
		},
		{
			name: "every error at once, in file order",
			yaml: "log_level: loud\n" + strings.Replace(base("    bogus: 1"), "latitude: 32", "latitude: 99", 1),
			want: []string{
				`bad.yaml:1: log_level "loud"`,
				`bad.yaml:7: location "Tel Aviv": latitude 99`,
				`bad.yaml:13: unknown key "bogus" in apps[0]`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse("bad.yaml", []byte(tc.yaml), env(tc.env))
			if err == nil {
				t.Fatalf("no error; config %+v", cfg)
			}
			if cfg != nil {
				t.Errorf("config %+v returned with the error", cfg)
			}
			msg := err.Error()
			rest := msg
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error does not contain %q (in order):\n%s", w, msg)
				}
				rest = rest[i+len(w):]
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("error %v holds no *Error", err)
			}
		})
	}
}
