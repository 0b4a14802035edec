package promexport_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"go.yaml.in/yaml/v3"

	"github.com/availmon/availmon/promexport"
)

type ruleOut struct {
	Record, Alert, Expr, For string
	Labels                   map[string]string
}

func parseRules(t *testing.T, o promexport.RuleOptions) []ruleOut {
	t.Helper()
	b, err := promexport.Rules(o)
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Groups []struct{ Rules []ruleOut } }
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var out []ruleOut
	for _, g := range f.Groups {
		out = append(out, g.Rules...)
	}
	return out
}

// outLabels tells which labels the result of e can carry: bounded is false
// when it keeps whatever labels its series had (instance, pod, ...).
func outLabels(e parser.Expr) (labels []string, bounded bool) {
	switch n := e.(type) {
	case *parser.ParenExpr:
		return outLabels(n.Expr)
	case *parser.AggregateExpr:
		if n.Without {
			return nil, false
		}
		return n.Grouping, true
	case *parser.BinaryExpr:
		if n.LHS.Type() != parser.ValueTypeVector {
			return outLabels(n.RHS)
		}
		l, lb := outLabels(n.LHS)
		if n.Op != parser.LOR {
			return l, lb // and, unless, comparisons: the left side's labels
		}
		r, rb := outLabels(n.RHS)
		return append(l, r...), lb && rb
	}
	return nil, false
}

// Every alert about what availmon watches aggregates to a keep-list: job,
// app, location, the -labels given and, for an unavailable app, its
// backend; job and service for a service. Alerts about a replica keep its labels. The
// recording rules about apps and locations aggregate too.
func TestRulesKeepLists(t *testing.T) {
	appKeep := []string{"job", "app", "location", "team", "env"}
	want := map[string][]string{
		"AvailmonAppDown":                  appKeep,
		"AvailmonAppUnavailable":           append(slices.Clone(appKeep), "backend"),
		"AvailmonServiceDown":              {"job", "service"},
		"AvailmonServiceDegraded":          {"job", "service"},
		"availmon:apps_up:ratio":           {"job"},
		"availmon:location_up:ratio":       {"job", "location"},
		"availmon:app_up:avg_over_time_1h": appKeep,
		// Per replica: they keep instance and every label of its scrape.
		"AvailmonBackendDisconnected": nil,
		"AvailmonStateSaveFailing":    nil,
		"AvailmonStalled":             nil,
		"AvailmonNotScraped":          nil,
		"availmon:replica:left_out":   nil,
		// Without the replicas' labels, not by a keep-list:
		// TestObjectiveRulesDropReplicaLabels.
		"AvailmonObjectiveFastBurn": nil,
		"AvailmonObjectiveSlowBurn": nil,
		"AvailmonObjectiveBreached": nil,
	}
	got := map[string][]string{}
	for _, r := range parseRules(t, promexport.RuleOptions{Labels: []string{"team", "env"}}) {
		e, err := parser.NewParser(parser.Options{}).ParseExpr(r.Expr)
		if err != nil {
			t.Fatalf("%s%s: %v\n%s", r.Alert, r.Record, err, r.Expr)
		}
		l, bounded := outLabels(e)
		if bounded {
			l = append([]string{}, l...)
			slices.Sort(l)
		}
		got[r.Alert+r.Record] = l
	}
	for _, l := range want {
		slices.Sort(l)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("labels of each rule's result (-want +got):\n%s", diff)
	}
}

func TestRulesDurations(t *testing.T) {
	o := promexport.RuleOptions{AppDownFor: 2 * time.Minute, UnavailableFor: 15 * time.Minute,
		ServiceFor: 3 * time.Minute, BackendFor: time.Minute, SaveFor: 30 * time.Minute}
	got := map[string]string{}
	for _, r := range parseRules(t, o) {
		if r.Alert != "" {
			got[r.Alert] = r.For
		}
		if r.For != "" {
			if _, err := model.ParseDuration(r.For); err != nil {
				t.Errorf("%s: for %q: %v", r.Alert, r.For, err)
			}
		}
		if r.Alert == "AvailmonStateSaveFailing" && (!strings.Contains(r.Expr, "[30m]") || !strings.Contains(r.Expr, "> 1800")) {
			t.Errorf("AvailmonStateSaveFailing does not look 30m back:\n%s", r.Expr)
		}
	}
	want := map[string]string{"AvailmonAppDown": "2m", "AvailmonAppUnavailable": "15m", "AvailmonServiceDown": "3m",
		"AvailmonServiceDegraded": "3m", "AvailmonBackendDisconnected": "1m", "AvailmonStateSaveFailing": "",
		"AvailmonStalled": "2m", "AvailmonNotScraped": "5m",
		// The short window holds them back, not a for.
		"AvailmonObjectiveFastBurn": "", "AvailmonObjectiveSlowBurn": "", "AvailmonObjectiveBreached": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("for of each alert (-want +got):\n%s", diff)
	}
}

func TestRulesRefuseOptions(t *testing.T) {
	for _, tt := range []struct {
		name string
		o    promexport.RuleOptions
	}{
		{"negative duration", promexport.RuleOptions{UnavailableFor: -time.Minute}},
		{"negative save", promexport.RuleOptions{SaveFor: -time.Minute}},
		{"not a label name", promexport.RuleOptions{Labels: []string{"te am"}}},
		{"reserved", promexport.RuleOptions{Labels: []string{"__team"}}},
		{"empty", promexport.RuleOptions{Labels: []string{""}}},
		{"kept anyway", promexport.RuleOptions{Labels: []string{"location"}}},
		{"job", promexport.RuleOptions{Labels: []string{"job"}}},
		{"backend", promexport.RuleOptions{Labels: []string{"backend"}}},
		{"per replica", promexport.RuleOptions{Labels: []string{"instance"}}},
		{"pod", promexport.RuleOptions{Labels: []string{"pod"}}},
		{"twice", promexport.RuleOptions{Labels: []string{"team", "team"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := promexport.Rules(tt.o); err == nil {
				t.Error("no error")
			}
		})
	}
}

// With OnlyJob every series a rule reads is of that job, so that two
// deployments' copies of the rules in one Prometheus neither record the
// same series nor send the same alert; without it no rule but
// AvailmonNotScraped names a job.
func TestRulesOnlyJob(t *testing.T) {
	for _, tt := range []struct {
		name string
		o    promexport.RuleOptions
		want string // the job matcher every selector has; "" none but NotScraped's
	}{
		{"every job", promexport.RuleOptions{Job: "prod/availmon"}, ""},
		{"only its job", promexport.RuleOptions{Job: "prod/availmon", OnlyJob: true}, "prod/availmon"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range parseRules(t, tt.o) {
				e, err := parser.NewParser(parser.Options{}).ParseExpr(r.Expr)
				if err != nil {
					t.Fatalf("%s%s: %v\n%s", r.Alert, r.Record, err, r.Expr)
				}
				for _, vs := range selectors(e) {
					if vs.Name == "availmon:replica:left_out" {
						continue // recorded from the series of the job
					}
					job := ""
					for _, m := range vs.LabelMatchers {
						if m.Name == "job" && m.Type == labels.MatchEqual {
							job = m.Value
						}
					}
					want := tt.want
					if r.Alert == "AvailmonNotScraped" {
						want = tt.o.Job
					}
					if job != want {
						t.Errorf("%s%s reads %s with job %q, want %q", r.Alert, r.Record, vs, job, want)
					}
				}
			}
		})
	}
}

// selectors are the vector selectors of e.
func selectors(e parser.Expr) []*parser.VectorSelector {
	var out []*parser.VectorSelector
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			out = append(out, vs)
		}
		return nil
	})
	return out
}
