package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/period"
)

func TestObjectivesConfig(t *testing.T) {
	cfg, err := Parse("o.yaml", []byte(controlsBase(
		"services: [{name: checkout}]", // 18
		"objectives:",
		"  - name: checkout-avail", // 20
		"    target: 99.9%",
		"    window: 30d",
		"    app: checkout",
		"    labels: {team: payments, runbook_url: 'https://runbooks/x'}",
		"  - {name: telaviv, target: 99.5%, window: month, location: Tel Aviv}", // 25
		"  - {name: svc, target: '99%', window: quarter, service: checkout}",
		"  - {name: each, target: 99.95%, window: 28d, selector: {service: checkout}, per_app: true}",
		"  - {name: later, target: 99%, window: 90d, selector: {team: search}}", // 28: matches nothing yet
	)), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	win := func(s string) objective.Window {
		w, err := objective.ParseWindow(s)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	want := []objective.Objective{
		{Name: "checkout-avail", Target: 0.999, Window: win("30d"), Subject: objective.Subject{App: "checkout"},
			Labels: map[string]string{"team": "payments", "runbook_url": "https://runbooks/x"}},
		{Name: "telaviv", Target: 0.995, Window: win("month"), Subject: objective.Subject{Location: "Tel Aviv"}},
		{Name: "svc", Target: 0.99, Window: win("quarter"), Subject: objective.Subject{Service: "checkout"}},
		{Name: "each", Target: 0.9995, Window: win("28d"), Subject: objective.Subject{Selector: map[string]string{"service": "checkout"}, PerApp: true}},
		{Name: "later", Target: 0.99, Window: win("90d"), Subject: objective.Subject{Selector: map[string]string{"team": "search"}}},
	}
	if d := cmp.Diff(want, cfg.Objectives, cmp.AllowUnexported(period.Window{})); d != "" {
		t.Errorf("objectives (-want +got):\n%s", d)
	}
	if len(cfg.Warnings) != 1 || cfg.Warnings[0].Line != 28 || !strings.Contains(cfg.Warnings[0].Msg, `no app of the file has the labels {team="search"}`) {
		t.Errorf("warnings: %v; want one on line 28 about the selector", cfg.Warnings)
	}
	if got := cfg.Summary(); !strings.HasSuffix(got, ", 5 objectives") {
		t.Errorf("Summary() = %q, want it to count the objectives", got)
	}
	if got := cfg.ObjectiveLines()[0]; got != "objective checkout-avail: 99.9% over 30d of app checkout" {
		t.Errorf("ObjectiveLines()[0] = %q", got)
	}
	opts, err := cfg.Options(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(opts.Objectives) != 5 {
		t.Errorf("Options().Objectives has %d objectives, want 5", len(opts.Objectives))
	}
	if _, err := availmon.New(opts); err != nil {
		t.Errorf("availmon.New: %v", err)
	}
}

func TestObjectivesConfigErrors(t *testing.T) {
	tests := []struct {
		name  string
		extra []string
		want  string
	}{
		{"target over 100%", []string{"objectives:", "  - name: a", "    target: 100.1%", "    window: 30d", "    app: checkout"},
			`o.yaml:20: objective "a": target "100.1%": must be at most 100%`},
		{"target not a percentage", []string{"objectives:", "  - {name: a, target: 0.999, window: 30d, app: checkout}"},
			`o.yaml:19: objective "a": target "0.999": not a percentage`},
		{"no target", []string{"objectives:", "  - {name: a, window: 30d, app: checkout}"}, `o.yaml:19: objective "a": no target`},
		{"unknown window", []string{"objectives:", "  - name: a", "    target: 99%", "    window: fortnightly", "    app: checkout"},
			`o.yaml:21: objective "a": window "fortnightly": not a duration, month or quarter`},
		{"window too short", []string{"objectives:", "  - {name: a, target: 99%, window: 1h, app: checkout}"}, `window "1h": shorter than 1d`},
		{"unknown app", []string{"objectives:", "  - name: a", "    target: 99%", "    window: 30d", "    app: nope"},
			`o.yaml:22: objective "a": no app is named "nope"`},
		{"unknown location", []string{"objectives:", "  - {name: a, target: 99%, window: 30d, location: Mars}"},
			`o.yaml:19: objective "a": no location is named "Mars"`},
		{"unknown service", []string{"objectives:", "  - {name: a, target: 99%, window: 30d, service: nope}"},
			`o.yaml:19: objective "a": no service is named "nope"`},
		{"no subject", []string{"objectives:", "  - {name: a, target: 99%, window: 30d}"}, `o.yaml:19: objective "a": no subject`},
		{"two subjects", []string{"objectives:", "  - {name: a, target: 99%, window: 30d, app: checkout, location: Tel Aviv}"},
			`more than one of app, location, service and selector`},
		{"per_app without selector", []string{"objectives:", "  - name: a", "    target: 99%", "    window: 30d", "    app: checkout", "    per_app: true"},
			`o.yaml:23: objective "a": per_app "true": per_app goes with a selector`},
		{"bad name", []string{"objectives:", "  - name: a b", "    target: 99%", "    window: 30d", "    app: checkout"},
			`o.yaml:19: objective "a b": name "a b": not a valid objective name`},
		{"name twice", []string{"objectives:", "  - {name: a, target: 99%, window: 30d, app: checkout}", "  - {name: a, target: 99%, window: 30d, app: checkout}"},
			`o.yaml:20: objective "a" is listed twice (first on line 19)`},
		{"reserved label", []string{"objectives:", "  - name: a", "    target: 99%", "    window: 30d", "    app: checkout", "    labels: {state: x}"},
			`o.yaml:23: objective "a": label "state": reserved`},
		{"latency", []string{"objectives:", "  - name: a", "    target: 99%", "    window: 30d", "    app: checkout", "    latency: {threshold: 300ms}"},
			`o.yaml:23: objective "a": latency objectives are not computed yet`},
		{"unknown key", []string{"objectives:", "  - {name: a, target: 99%, window: 30d, app: checkout, slo: x}"}, `unknown key "slo" in objectives[0]`},
		{"not a list", []string{"objectives: {name: a}"}, `o.yaml:18: cannot unmarshal !!map into a list of objectives`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("o.yaml", []byte(controlsBase(tt.extra...)), env(nil))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, tt.want)
			}
		})
	}
}

// With discover: rules an objective's app may be one a rule finds.
func TestObjectivesConfigDiscovered(t *testing.T) {
	objs := "objectives:\n  - {name: cart, target: 99.9%, window: 30d, app: cart-il}\n"
	rules := "discover:\n  - {name: services, query: up, app: '{{ .service }}-{{ .region }}', location_label: region}\n"
	cfg, err := Parse("d.yaml", []byte(discoverBase+rules+objs), env(nil))
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
	if _, err := Parse("d.yaml", []byte(discoverBase+objs), env(nil)); err == nil || !strings.Contains(err.Error(), `no app is named "cart-il"`) {
		t.Errorf("without discovery: %v; want the unknown app refused", err)
	}
}
