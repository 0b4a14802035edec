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
