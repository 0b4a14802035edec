package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
)

const discoverBase = `prometheus:
  - name: main
    url: http://127.0.0.1:9090
locations:
  - name: Tel Aviv
    latitude: 32
    longitude: 34
    match: [il, il-central-1]
  - {name: Frankfurt, latitude: 50, longitude: 8, match: [eu-central-1]}
apps:
  - {name: checkout, location: Tel Aviv, metric: up}
`

func TestDiscoverSection(t *testing.T) {
	cfg, err := Parse("d.yaml", []byte(discoverBase+`discover:
  - name: services
    query: up{job="svc"}
    app: '{{ .service }}-{{ .region }}'
    location_label: region
  - name: probes
    prometheus: main
    query: probe_success
    app: '{{ .instance }}'
    location_label: zone
    forget_after: 10m
    max_apps: 50
`), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := []availmon.DiscoveryRule{
		{Name: "services", Backend: "main", Query: `up{job="svc"}`, AppName: "{{ .service }}-{{ .region }}",
			LocationLabel: "region", ForgetAfter: time.Hour, MaxApps: 10_000},
		{Name: "probes", Backend: "main", Query: "probe_success", AppName: "{{ .instance }}",
			LocationLabel: "zone", ForgetAfter: 10 * time.Minute, MaxApps: 50},
	}
	if d := cmp.Diff(want, cfg.Discover); d != "" {
		t.Errorf("rules (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"il", "il-central-1"}, cfg.Locations[0].Match); d != "" {
		t.Errorf("match (-want +got):\n%s", d)
	}
	opts, err := cfg.Options(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := availmon.New(opts); err != nil {
		t.Errorf("New: %v", err)
	}
}

// Each problem of a rule is reported on its line.
func TestDiscoverErrors(t *testing.T) {
	rule := func(lines ...string) string { return discoverBase + "discover:\n" + strings.Join(lines, "\n") + "\n" }
	tests := []struct {
		name, file string
		want       string
	}{
		{"unknown backend", rule("  - name: r", "    prometheus: other", "    query: up", "    app: '{{ .a }}'", "    location_label: z"),
			`d.yaml:14: discovery rule "r": unknown prometheus backend "other"`},
		{"no query", rule("  - name: r", "    app: '{{ .a }}'", "    location_label: z"), `d.yaml:13: discovery rule "r" has no query`},
		{"bad query", rule("  - name: r", "    query: 'up{'", "    app: '{{ .a }}'", "    location_label: z"), `d.yaml:14: discovery rule "r": query: `},
		{"bad template", rule("  - name: r", "    query: up", "    app: '{{ .a'", "    location_label: z"), `d.yaml:15: discovery rule "r": app: `},
		{"no template", rule("  - name: r", "    query: up", "    location_label: z"), `d.yaml:13: discovery rule "r" has no app: template`},
		{"bad label", rule("  - name: r", "    query: up", "    app: x{{ .a }}", "    location_label: ''"), `location_label "" is not a label name`},
		{"bad forget_after", rule("  - name: r", "    query: up", "    app: x{{ .a }}", "    location_label: z", "    forget_after: soon"), `d.yaml:17: discover[0].forget_after: "soon" is not a duration`},
		{"bad max_apps", rule("  - name: r", "    query: up", "    app: x{{ .a }}", "    location_label: z", "    max_apps: 0"), `d.yaml:17: discovery rule "r": max_apps must be at least 1`},
		{"unknown key", rule("  - name: r", "    query: up", "    app: x{{ .a }}", "    location_label: z", "    labels: {}"), `d.yaml:17: `},
		{"twice", rule("  - {name: r, query: up, app: 'x{{ .a }}', location_label: z}", "  - {name: r, query: up2, app: 'x{{ .a }}', location_label: z}"),
			`d.yaml:14: discovery rule "r" is listed twice (first on line 13)`},
		{"same apps", rule("  - {name: r, query: up, app: 'x{{ .a }}', location_label: z}", "  - {name: s, query: up, app: 'x{{ .a }}', location_label: z}"),
			`d.yaml:14: discovery rules "r" and "s" make the same apps from the same query (first on line 13)`},
		{"constant name of a listed app", rule("  - {name: r, query: up, app: checkout, location_label: z}"),
			`d.yaml:13: discovery rule "r": every app it makes is named "checkout", which is a listed app`},
		{"two constant names", rule("  - {name: r, query: up, app: same, location_label: z}", "  - {name: s, query: up2, app: same, location_label: z}"),
			`d.yaml:14: discovery rule "s": every app it makes is named "same", as are those of rule "r"`},
		{"match twice", strings.Replace(discoverBase, "match: [eu-central-1]", "match: [eu-central-1, il]", 1),
			`d.yaml:9: location "Frankfurt": match value "il" is also matched by location "Tel Aviv"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("d.yaml", []byte(tc.file), env(nil))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}
