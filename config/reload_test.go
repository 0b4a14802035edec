package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// RestartNeeded names exactly the fixed settings that differ; the app set
// and the interval change at run time and are never listed.
func TestRestartNeeded(t *testing.T) {
	base := `scrape_interval: 10s
prometheus: [{name: main, url: "http://127.0.0.1:9090"}]
locations: [{name: A, latitude: 1, longitude: 2}]
apps: [{name: a, location: A, metric: up}]
`
	parse := func(extra string) *Config {
		t.Helper()
		c, err := Parse("t.yaml", []byte(base+extra), env(nil))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	old := parse("")
	tests := []struct {
		extra string
		want  []string
	}{
		{"", nil},
		{"max_parallel: 3\nhistory_size: 7\n", []string{"max_parallel", "history_size"}},
		{"scrape_timeout: 2s\nlog_level: debug\n", []string{"scrape_timeout", "log_level"}},
		{"websocket: {allowed_origins: [a.example.com]}\n", []string{"websocket.allowed_origins"}},
		{"storage: {path: /var/lib/elsewhere}\n", []string{"storage.path"}},
		{"authentication: {hmac: {enabled: true, secret: 0123456789abcdef0123456789abcdef}}\n", []string{"authentication"}},
		// Applied by Reconfigure.
		{"fail_threshold: 3\nsuccess_threshold: 2\nmaintenance: [{app: a, duration: 1h}]\n", nil},
		{"export_labels: [team]\n", []string{"export_labels"}},
		{"authentication: {allow_unauthenticated_writes: true}\n", []string{"authentication"}},
	}
	for _, tc := range tests {
		if got := parse(tc.extra).RestartNeeded(old); !cmp.Equal(tc.want, got) {
			t.Errorf("%q: (-want +got):\n%s", tc.extra, cmp.Diff(tc.want, got))
		}
	}
	// An interval below the default timeout changes the timeout the
	// file would give, but not one it sets: without the key the monitor's
	// timeout follows the interval.
	for _, tc := range []struct{ from, to string }{{"scrape_interval: 30s\n", "scrape_interval: 5s\n"}, {"scrape_interval: 5s\n", "scrape_interval: 30s\n"}} {
		a, err := Parse("t.yaml", []byte(tc.from+base[len("scrape_interval: 10s\n"):]), env(nil))
		if err != nil {
			t.Fatal(err)
		}
		b, err := Parse("t.yaml", []byte(tc.to+base[len("scrape_interval: 10s\n"):]), env(nil))
		if err != nil {
			t.Fatal(err)
		}
		if got := b.RestartNeeded(a); got != nil {
			t.Errorf("%q to %q without scrape_timeout: %v, want nothing", tc.from, tc.to, got)
		}
	}
	// The replay file is the binary's, not the file's: a reloaded file,
	// which has none, does not differ for it.
	withFile := parse("")
	withFile.ReplayFile = "data/availmon.replay"
	if got := parse("").RestartNeeded(withFile); got != nil {
		t.Errorf("replay file set by the binary: %v", got)
	}
	// Another app set, backend URL and interval are not a restart.
	c, err := Parse("t.yaml", []byte(`scrape_interval: 20s
prometheus: [{name: main, url: "http://127.0.0.1:9091"}]
locations: [{name: B, latitude: 1, longitude: 2}]
apps: [{name: b, location: B, metric: up}]
`), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.RestartNeeded(old); got != nil {
		t.Errorf("app set change: %v", got)
	}
}
