package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
)

func TestMaintenanceConfig(t *testing.T) {
	cfg, err := Parse("m.yaml", []byte(controlsBase(
		"services: [{name: checkout}]", // 18
		"maintenance:",
		"  - name: weekly-db", // 20
		"    service: checkout",
		"    cron: 0 3 * * SUN",
		"    duration: 2h",
		"    time_zone: Europe/Berlin",
		"    comment: database upgrade", // 25
		"  - app: checkout-2",
		"    from: 2026-12-01T00:00:00Z",
		"    to: 2026-12-01T04:00:00+02:00",
		"  - labels: {team: payments}",
		"    location: Tel Aviv", // 30
		"    cron: '@daily'",
		"    duration: 30m",
		"  - {location: Tel Aviv, duration: 1h}", // starts now
	)), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := []availmon.MaintenanceWindow{
		{ID: "weekly-db", Service: "checkout", Cron: "0 3 * * SUN", Duration: 2 * time.Hour, TimeZone: "Europe/Berlin", Comment: "database upgrade"},
		{App: "checkout-2", From: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)},
		{Labels: map[string]string{"team": "payments"}, Location: "Tel Aviv", Cron: "@daily", Duration: 30 * time.Minute},
		{Location: "Tel Aviv", Duration: time.Hour},
	}
	if d := cmp.Diff(want, cfg.Maintenance, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); d != "" {
		t.Errorf("maintenance (-want +got):\n%s", d)
	}
	opts, err := cfg.Options(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := availmon.New(opts); err != nil {
		t.Errorf("availmon.New: %v", err)
	}
}

func TestMaintenanceConfigErrors(t *testing.T) {
	tests := []struct {
		name  string
		extra []string
		want  string
	}{
		{"no target", []string{"maintenance:", "  - cron: '@daily'", "    duration: 1h"}, `m.yaml:19: maintenance window "config-1": name the apps`},
		{"bad cron", []string{"maintenance:", "  - app: checkout", "    cron: 0 25 * * *", "    duration: 1h"}, `m.yaml:19: maintenance window "config-1": cron "0 25 * * *"`},
		{"bad zone", []string{"maintenance:", "  - app: checkout", "    cron: '@daily'", "    duration: 1h", "    time_zone: Moon/Base"}, `time_zone "Moon/Base"`},
		{"bad duration", []string{"maintenance:", "  - app: checkout", "    cron: '@daily'", "    duration: long"}, `m.yaml:21: maintenance[0].duration: "long" is not a duration`},
		{"bad from", []string{"maintenance:", "  - app: checkout", "    from: tomorrow", "    to: 2026-12-01T00:00:00Z"}, `m.yaml:20: maintenance window "config-1": from "tomorrow" is not an RFC 3339 time`},
		{"to before from", []string{"maintenance:", "  - app: checkout", "    from: 2026-12-02T00:00:00Z", "    to: 2026-12-01T00:00:00Z"}, `m.yaml:19: maintenance window "config-1": a one-off window needs from before to`},
		{"both kinds", []string{"maintenance:", "  - app: checkout", "    from: 2026-12-01T00:00:00Z", "    to: 2026-12-02T00:00:00Z", "    cron: '@daily'"}, "not a mix of them"},
		{"unknown app", []string{"maintenance:", "  - app: nope", "    cron: '@daily'", "    duration: 1h"}, `m.yaml:19: maintenance window "config-1": no app is named "nope"`},
		{"unknown location", []string{"maintenance:", "  - location: Mars", "    cron: '@daily'", "    duration: 1h"}, `m.yaml:19: maintenance window "config-1": no location is named "Mars"`},
		{"unknown service", []string{"maintenance:", "  - service: nope", "    cron: '@daily'", "    duration: 1h"}, `m.yaml:19: maintenance window "config-1": no service is named "nope"`},
		{"unknown label", []string{"maintenance:", "  - labels: {tier: '1'}", "    cron: '@daily'", "    duration: 1h"}, `m.yaml:19: maintenance window "config-1": no app has a label "tier"`},
		{"name twice", []string{"maintenance:", "  - {name: a, app: checkout, cron: '@daily', duration: 1h}", "  - {name: a, app: checkout, cron: '@daily', duration: 1h}"}, `m.yaml:20: maintenance window "a" is listed twice (first on line 19)`},
		{"reserved name", []string{"maintenance:", "  - {name: api-1, app: checkout, cron: '@daily', duration: 1h}"}, `m.yaml:19: maintenance window "api-1": names config-N and api-N are given by availmon`},
		{"unknown key", []string{"maintenance:", "  - app: checkout", "    every: sunday"}, `m.yaml:20: unknown key "every" in maintenance[0]`},
		{"duration and a zone", []string{"maintenance:", "  - {app: checkout, duration: 1h, time_zone: UTC}"}, `m.yaml:19: maintenance window "config-1": set from and to (one-off), duration alone`},
		{"starts now too long", []string{"maintenance:", "  - {app: checkout, duration: 800h}"}, `m.yaml:19: maintenance window "config-1": duration 800h0m0s is outside`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("m.yaml", []byte(controlsBase(tt.extra...)), env(nil))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, tt.want)
			}
		})
	}
}

// With discover: rules, a window may name an app or a label key that no
// listed app has: a rule may find it. Without, that is an error.
func TestMaintenanceConfigDiscovered(t *testing.T) {
	windows := `maintenance:
  - {app: cart-il, from: 2026-12-01T00:00:00Z, to: 2026-12-01T04:00:00Z}
  - {labels: {service: cart}, duration: 1h}
`
	rules := `discover:
  - {name: services, query: up, app: '{{ .service }}-{{ .region }}', location_label: region}
`
	cfg, err := Parse("d.yaml", []byte(discoverBase+rules+windows), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	opts, err := cfg.Options(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := availmon.New(opts); err != nil {
		t.Errorf("availmon.New: %v", err)
	}
	_, err = Parse("d.yaml", []byte(discoverBase+windows), env(nil))
	for _, want := range []string{`d.yaml:13: maintenance window "config-1": no app is named "cart-il"`, `d.yaml:14: maintenance window "config-2": no app has a label "service"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("without discovery: %v; want %s", err, want)
		}
	}
}
