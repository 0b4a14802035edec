package availmon

import (
	"math"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/prometheus/common/model"
)

// Whatever series a query returns (any labels, values, counts), folding
// them never panics, never holds more than MaxApps apps, and gives every
// app a valid state and a configured location.
func FuzzDiscoveryFold(f *testing.F) {
	f.Add("service=a,region=il;service=b,region=eu", "{{ .service }}-{{ .region }}", 1.0, uint8(2))
	f.Add("region=il;;=x", "{{ .region }}", 0.0, uint8(1))
	f.Add("service=a", "{{ index . \"service\" }}", math.NaN(), uint8(0))
	f.Fuzz(func(t *testing.T, series, tmpl string, value float64, maxApps uint8) {
		tp, err := template.New("r").Option("missingkey=error").Parse(tmpl)
		if err != nil {
			return
		}
		locs := []Location{{Name: "Tel Aviv", Match: []string{"il"}}, {Name: "Frankfurt", Match: []string{"eu"}}}
		rs := &ruleState{
			rule:  DiscoveryRule{Name: "r", LocationLabel: "region", MaxApps: int(maxApps) + 1, ForgetAfter: time.Minute},
			name:  tp,
			locOf: map[string]int{"il": 0, "eu": 1, "Tel Aviv": 0, "Frankfurt": 1},
			apps:  map[string]*foundApp{},
		}
		var vec model.Vector
		for i, s := range strings.Split(series, ";") {
			m := model.Metric{}
			for _, kv := range strings.Split(s, ",") {
				k, v, _ := strings.Cut(kv, "=")
				m[model.LabelName(k)] = model.LabelValue(v)
			}
			vec = append(vec, &model.Sample{Metric: m, Value: model.SampleValue(value * float64(i%3))})
		}
		now := t0
		for range 3 {
			rs.fold(vec, time.Millisecond, nil, now, locs)
			if len(rs.apps) > rs.rule.MaxApps {
				t.Fatalf("%d apps past max_apps %d", len(rs.apps), rs.rule.MaxApps)
			}
			for name, a := range rs.apps {
				if name == "" || !a.result.Status.Valid() || (a.app.Location != "Tel Aviv" && a.app.Location != "Frankfurt") {
					t.Fatalf("app %q: %+v", name, a)
				}
			}
			vec = vec[:len(vec)/2]
			now = now.Add(time.Minute)
		}
	})
}
