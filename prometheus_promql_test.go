package availmon

import (
	"context"
	"strings"
	"testing"
)

// New refuses the apps of a Prometheus backend whose expressions the
// parser refuses, every one of them at once, with the parser's position.
func TestNewRefusesBadPromQL(t *testing.T) {
	src, err := NewPrometheusSource(PrometheusOptions{Name: "main", URL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	probe := &HTTPProbe{URL: "http://127.0.0.1:1/", Method: "GET", ExpectStatus: []string{"2xx"}}
	_, err = New(Options{
		Locations: []Location{{Name: "here"}},
		Apps: []App{
			{Name: "good", Location: "here", Backend: "main", Metric: `sum by (app) (rate(x{app="a"}[5m])) # comment`},
			{Name: "unclosed", Location: "here", Backend: "main", Metric: `up{job="a"`},
			{Name: "range", Location: "here", Backend: "main", Metric: `up[5m]`},
			{Name: "bad-rt", Location: "here", Backend: "main", Metric: `up`, ResponseTimeMetric: "sum(\n  up) + \"x\""},
			{Name: "empty", Location: "here", Backend: "main", Metric: ``},
			{Name: "probe", Location: "here", Backend: "probes", HTTP: probe},
		},
		Backends: []Backend{
			{Name: "main", Source: src, BatchSize: PrometheusBatchSize},
			{Name: "probes", Source: SourceFunc(func(ctx context.Context, a App) Result { return Result{} })},
		},
	})
	if err == nil {
		t.Fatal("New accepted bad expressions")
	}
	for _, want := range []string{
		`app "unclosed": metric: 1:11: parse error: unexpected end of input inside braces`,
		`app "range": metric: 1:1: the expression returns a range vector`,
		`app "bad-rt": response time metric: 2:9: parse error: binary expression must contain only scalar and instant vector types`,
		`app "empty": metric: the expression is empty`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("New's error does not contain %q:\n%v", want, err)
		}
	}
	for _, notWant := range []string{`"good"`, `"probe"`} {
		if strings.Contains(err.Error(), notWant) {
			t.Errorf("New's error blames app %s:\n%v", notWant, err)
		}
	}
}
