package config

import "testing"

func TestSummary(t *testing.T) {
	probe := func(name string) string {
		return "  - {name: " + name + ", location: Tel Aviv, http: {url: 'http://127.0.0.1:9/'}}"
	}
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"one of each", base(), "1 app, 1 location, 1 Prometheus backend"},
		{"probes", base(probe("a"), probe("b")), "3 apps (2 HTTP probes), 1 location, 1 Prometheus backend"},
		{"probes only", "locations: [{name: Tel Aviv, latitude: 1, longitude: 2}, {name: B, latitude: 3, longitude: 4}]\napps:\n" + probe("a") + "\n",
			"1 app (1 HTTP probe), 2 locations, 0 Prometheus backends"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse("t.yaml", []byte(tc.yaml), env(nil))
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Summary(); got != tc.want {
				t.Errorf("Summary() = %q, want %q", got, tc.want)
			}
		})
	}
}
