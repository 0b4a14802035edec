package config

import (
	"os"
	"testing"

	"github.com/availmon/availmon"
)

// Any input either fails with *Errors or gives options that availmon.New
// accepts: the file's checks are at least as strict as New's.
func FuzzParse(f *testing.F) {
	good, err := os.ReadFile("testdata/good.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(base()))
	f.Add([]byte(base("  - name: web", "    location: Tel Aviv", "    http:", "      url: http://127.0.0.1:1/", "      expect_status: [301, 2xx]")))
	f.Add([]byte("a: &x [1, *x]\n"))
	f.Add([]byte(controlsBase("maintenance:", "  - {app: checkout, cron: '0 3 * * SUN', duration: 2h, time_zone: Europe/Berlin}", "  - {location: Tel Aviv, from: 2026-12-01T00:00:00Z, to: 2026-12-02T00:00:00Z}")))
	f.Add([]byte(discoverBase + "discover:\n  - {name: r, query: up, app: '{{ .a }}-x', location_label: z, max_apps: 3, forget_after: 1m}\n"))
	f.Add([]byte(controlsBase("fail_threshold: 2", "export_labels: [team]", "services:", "  - name: checkout", "    min_up: 50%")))
	f.Add([]byte("apps: [{name: a, location: b, metric: ${X}}]\nlocations: [{name: b, latitude: .nan, longitude: 0}]\n"))
	f.Add([]byte(controlsBase("services: [{name: checkout}]", "objectives:",
		"  - {name: a, target: 99.9%, window: 30d, app: checkout, labels: {team: x}}",
		"  - {name: b, target: 99.5%, window: month, location: Tel Aviv}",
		"  - {name: c, target: '99%', window: quarter, service: checkout}",
		"  - {name: d, target: 99.95%, window: 28d, selector: {service: checkout}, per_app: true}")))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse("f.yaml", data, goodEnv)
		if err != nil {
			if cfg != nil {
				t.Fatal("config returned with an error")
			}
			return
		}
		opts, err := cfg.Options(nil)
		if err != nil {
			t.Fatalf("Parse accepted the file but Options failed: %v", err)
		}
		if _, err := availmon.New(opts); err != nil {
			t.Fatalf("Parse accepted the file but availmon.New refuses it: %v\n%s", err, data)
		}
	})
}
