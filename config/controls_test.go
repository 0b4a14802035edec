package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
)

// controlsBase is base() with labels on checkout and a second app.
func controlsBase(extra ...string) string {
	return base(append([]string{
		"    labels: {service: checkout, team: payments}", // 12
		"    fail_threshold: 3",
		"  - name: checkout-2",
		"    location: Tel Aviv", // 15
		"    metric: up",
		"    labels: {service: checkout}",
	}, extra...)...)
}

func TestControls(t *testing.T) {
	cfg, err := Parse("c.yaml", []byte(controlsBase(
		"fail_threshold: 2", // 18
		"success_threshold: 4",
		"export_labels: [team]",
		"services:",
		"  - name: checkout",
		"    min_up: 1",
		"  - name: payments",
		"    selector: {team: payments}",
		"    min_up: 50%",
	)), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	opts, err := cfg.Options(nil)
	if err != nil {
		t.Fatal(err)
	}
	if opts.FailThreshold != 2 || opts.SuccessThreshold != 4 || opts.Apps[0].FailThreshold != 3 || opts.Apps[1].FailThreshold != 0 {
		t.Errorf("thresholds: options %d/%d, apps %d and %d", opts.FailThreshold, opts.SuccessThreshold, opts.Apps[0].FailThreshold, opts.Apps[1].FailThreshold)
	}
	if d := cmp.Diff(map[string]string{"service": "checkout", "team": "payments"}, opts.Apps[0].Labels); d != "" {
		t.Errorf("labels (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"team"}, opts.ExportLabels); d != "" {
		t.Errorf("export_labels (-want +got):\n%s", d)
	}
	want := []availmon.Service{
		{Name: "checkout", MinUp: 1},
		{Name: "payments", Selector: map[string]string{"team": "payments"}, MinUpPercent: 50},
	}
	if d := cmp.Diff(want, opts.Services); d != "" {
		t.Errorf("services (-want +got):\n%s", d)
	}
	if _, err := availmon.New(opts); err != nil {
		t.Errorf("availmon.New: %v", err)
	}
}

func TestControlsErrors(t *testing.T) {
	tests := []struct {
		name  string
		extra []string
		want  string
	}{
		{"zero threshold", []string{"fail_threshold: 0"}, "c.yaml:18: fail_threshold must be at least 1, not 0"},
		{"app threshold", []string{"    success_threshold: -1"}, "c.yaml:18: apps[1].success_threshold must be at least 1, not -1"},
		{"threshold not a number", []string{"success_threshold: many"}, "c.yaml:18: cannot unmarshal !!str `many` into int"},
		{"bad label key", []string{"  - {name: c3, location: Tel Aviv, metric: up, labels: {0team: x}}"}, "c.yaml:18: app \"c3\": label \"0team\": the key is not a label name"},
		{"empty label value", []string{"  - {name: checkout-2, location: Tel Aviv, metric: up, labels: {team: \"\"}}"}, "c.yaml:18: app \"checkout-2\": label \"team\": the value is empty"},
		{"labels not a mapping", []string{"  - {name: c3, location: Tel Aviv, metric: up, labels: [a]}"}, "c.yaml:18: cannot unmarshal !!seq into map[string]string"},
		{"export reserved", []string{"export_labels: [location]"}, "c.yaml:18: export_labels: \"location\" is a label availmon's series already carry"},
		{"export twice", []string{"export_labels: [team, team]"}, "c.yaml:18: export_labels: \"team\" is listed twice"},
		{"export bad name", []string{"export_labels: [a-b]"}, "c.yaml:18: export_labels: \"a-b\" is not a label name"},
		{"service matches nothing", []string{"services:", "  - name: search"}, "c.yaml:19: service \"search\": no app has the labels {service=\"search\"}"},
		{"service twice", []string{"services:", "  - name: checkout", "  - name: checkout"}, "c.yaml:20: service \"checkout\" is listed twice (first on line 19)"},
		{"service no name", []string{"services:", "  - selector: {team: payments}"}, "c.yaml:19: service 1 has no name"},
		{"min_up too high", []string{"services:", "  - name: checkout", "    min_up: 2"}, "c.yaml:20: service \"checkout\": min_up 2 is more than its 1 locations"},
		{"min_up zero", []string{"services:", "  - name: checkout", "    min_up: 0"}, "c.yaml:20: service \"checkout\": min_up \"0\" is neither"},
		{"min_up percent", []string{"services:", "  - name: checkout", "    min_up: 150%"}, "c.yaml:20: service \"checkout\": min_up \"150%\" is not a percentage"},
		{"service unknown key", []string{"services:", "  - name: checkout", "    quorum: 2"}, "c.yaml:20: unknown key \"quorum\" in services[0]"},
		{"selector bad key", []string{"services:", "  - name: x", "    selector: {\"a b\": c}"}, "c.yaml:20: service \"x\": selector: label \"a b\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(controlsBase(tt.extra...)), env(nil))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, tt.want)
			}
		})
	}
}
