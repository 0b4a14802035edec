package promexport_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/availmon/availmon/promexport"
)

// The objectives' alerts cannot keep a list of labels: an objective's own
// labels are its configuration's, and the rules are the same whatever it
// is. So every aggregation in them is without the labels that differ per
// replica (instance, pod), and without window where it reads one burn
// window, so that a long and a short window's series match; their alerts
// keep the objective, its labels, job, and the labels a deployment's
// replicas share.
func TestObjectiveRulesDropReplicaLabels(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range parseRules(t, promexport.RuleOptions{Labels: []string{"team"}}) {
		if !strings.HasPrefix(r.Alert, "AvailmonObjective") {
			continue
		}
		seen[r.Alert] = true
		e, err := parser.NewParser(parser.Options{}).ParseExpr(r.Expr)
		if err != nil {
			t.Fatalf("%s: %v\n%s", r.Alert, err, r.Expr)
		}
		parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
			a, ok := n.(*parser.AggregateExpr)
			if !ok {
				return nil
			}
			want := []string{"instance", "pod"}
			for _, vs := range selectors(a.Expr) {
				for _, m := range vs.LabelMatchers {
					if m.Name == "window" && m.Type == labels.MatchEqual {
						want = append(want, "window")
					}
				}
			}
			got := slices.Sorted(slices.Values(a.Grouping))
			slices.Sort(want)
			if !a.Without || !cmp.Equal(want, got) {
				t.Errorf("%s aggregates %s, want without %v", r.Alert, a, want)
			}
			return nil
		})
	}
	if len(seen) != 3 {
		t.Errorf("objective alerts: %v, want 3", seen)
	}
}

// The thresholds are package objective's: inclusive, with its relative
// slack of 1e-9, so a burn that is 14.4 in exact arithmetic pages however
// its float rounds, as the API's at_risk state says.
func TestObjectiveRulesThresholds(t *testing.T) {
	want := map[string][]string{
		"AvailmonObjectiveFastBurn": {`window="1h"`, `window="5m"`, ">= 14.3999999856", `window="6h"`, `window="30m"`, ">= 5.999999994"},
		"AvailmonObjectiveSlowBurn": {`window="1d"`, `window="2h"`, ">= 2.999999997", `window="3d"`, `window="6h"`, ">= 0.999999999"},
		"AvailmonObjectiveBreached": {"availmon_objective_error_budget_remaining_ratio", "< -1e-09", "availmon_objective_error_budget_remaining_seconds", "< 0"},
	}
	for _, r := range parseRules(t, promexport.RuleOptions{}) {
		for _, s := range want[r.Alert] {
			if !strings.Contains(r.Expr, s) {
				t.Errorf("%s does not contain %q:\n%s", r.Alert, s, r.Expr)
			}
		}
	}
}
