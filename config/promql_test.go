package config

import (
	"strings"
	"testing"
)

// max_query_length is a backend's own key, not an HTTP client setting; it
// reaches the source's options, and a value too small is refused.
func TestMaxQueryLength(t *testing.T) {
	yaml := strings.Replace(base(), "    url: http://127.0.0.1:9090",
		"    url: http://127.0.0.1:9090\n    max_query_length: 16384\n    basic_auth:\n      username: u", 1)
	cfg, err := Parse("limit.yaml", []byte(yaml), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Prometheus[0]; got.MaxQueryLength != 16384 || got.HTTPClientConfig.BasicAuth == nil {
		t.Errorf("backend = %+v, want max_query_length 16384 beside basic_auth", got)
	}
	if _, err := cfg.Options(nil); err != nil {
		t.Fatal(err)
	}
	for value, want := range map[string]string{
		"100":  `bad.yaml:4: prometheus backend "main": max_query_length must be at least 1024 bytes, not 100`,
		"16KB": `bad.yaml:4: cannot unmarshal`,
	} {
		yaml := strings.Replace(base(), "    url: http://127.0.0.1:9090", "    url: http://127.0.0.1:9090\n    max_query_length: "+value, 1)
		_, err := Parse("bad.yaml", []byte(yaml), env(nil))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("max_query_length: %s: err %v, want %q", value, err, want)
		}
	}
}

// shard_series is a backend's own key: absent is the default, 0 never
// cuts a wide group in shards, and a value below the least is refused.
func TestShardSeries(t *testing.T) {
	for _, tt := range []struct {
		name, value string
		want        int
	}{{"absent", "", 0}, {"never", "0", -1}, {"set", "20000", 20000}} {
		t.Run(tt.name, func(t *testing.T) {
			yaml := base()
			if tt.value != "" {
				yaml = strings.Replace(yaml, "    url: http://127.0.0.1:9090", "    url: http://127.0.0.1:9090\n    shard_series: "+tt.value, 1)
			}
			cfg, err := Parse("shards.yaml", []byte(yaml), env(nil))
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Prometheus[0].ShardSeries; got != tt.want {
				t.Errorf("ShardSeries %d, want %d", got, tt.want)
			}
			if _, err := cfg.Options(nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, tt := range []struct{ name, value, want string }{
		{"too few", "999", `bad.yaml:4: prometheus backend "main": shard_series must be 0 (never) or at least 1000 series, not 999`},
		{"negative", "-5", `bad.yaml:4: prometheus backend "main": shard_series must be 0 (never) or at least 1000 series, not -5`},
		{"not a number", "many", `bad.yaml:4: cannot unmarshal`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			yaml := strings.Replace(base(), "    url: http://127.0.0.1:9090", "    url: http://127.0.0.1:9090\n    shard_series: "+tt.value, 1)
			_, err := Parse("bad.yaml", []byte(yaml), env(nil))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}
