package availmon

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
)

// availmon_up carries the exported label keys and no others.
func TestExportLabels(t *testing.T) {
	reg := prometheus.NewRegistry()
	tm := newLabelledMonitor(t, func(o *Options) {
		o.ExportLabels = []string{"team"}
		o.Registerer = reg
	})
	_ = tm
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, mf := range mfs {
		if mf.GetName() != "availmon_up" {
			continue
		}
		for _, m := range mf.GetMetric() {
			var parts []string
			for _, l := range m.GetLabel() {
				parts = append(parts, l.GetName()+"="+l.GetValue())
			}
			got = append(got, fmt.Sprintf("%s %v", strings.Join(parts, ","), m.GetGauge().GetValue()))
		}
	}
	// An app without the label has it empty, which Prometheus stores as
	// no label at all.
	want := []string{
		"app=a1,location=Tel Aviv,team=a 1",
		"app=a2,location=Frankfurt,team=a 0",
		"app=a3,location=Berlin,team=a 1",
		"app=b1,location=Tel Aviv,team=b 0",
		"app=b2,location=Frankfurt,team=b 1",
		"app=x2,location=Berlin,team= 0",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("availmon_up (-want +got):\n%s", d)
	}
}

func TestControlsOptionsErrors(t *testing.T) {
	tests := []struct {
		name string
		f    func(*Options)
		want string
	}{
		{"bad label key", func(o *Options) { o.Apps[0].Labels = map[string]string{"a-b": "x"} }, `label "a-b": the key is not a label name`},
		{"reserved label key prefix", func(o *Options) { o.Apps[0].Labels = map[string]string{"__x": "x"} }, `label "__x"`},
		{"empty label value", func(o *Options) { o.Apps[0].Labels = map[string]string{"team": ""} }, `label "team": the value is empty`},
		{"label value not UTF-8", func(o *Options) { o.Apps[0].Labels = map[string]string{"team": "\xff"} }, `label "team": the value is not valid UTF-8`},
		{"export reserved", func(o *Options) { o.ExportLabels = []string{"location"} }, `ExportLabels: "location"`},
		{"export twice", func(o *Options) { o.ExportLabels = []string{"team", "team"} }, `listed twice`},
		{"export bad", func(o *Options) { o.ExportLabels = []string{"1x"} }, `not a label name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{Locations: []Location{telAviv}, Apps: []App{{Name: "a", Location: "Tel Aviv", Metric: "up"}},
				Source: newFakeSource()}
			tt.f(&o)
			if _, err := New(o); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v, want %q", err, tt.want)
			}
		})
	}
}
