package promexport

import (
	"fmt"
	"strconv"
	"strings"
)

// The objectives' alerts read the burn rates and budgets availmon exports
// (availmon_objective_*), never availmon_up: the figures they page on are
// the ones GET /api/objectives shows, counted in time, with unknown time
// and maintenance spending nothing. So the rules are the same whatever the
// objectives configured: a Helm chart can ship them.

// burnAlert is one multi-window condition of the SRE workbook: the burn
// rate over a long and a short window both at Factor or more. The long
// window says enough of the budget went; the short one that it still goes,
// so the alert resolves minutes after the burn stops.
type burnAlert struct {
	Long, Short string
	Factor      float64
}

// pageBurns and ticketBurns are the workbook's thresholds for a 30-day
// budget: 2% of it in an hour or 5% in 6 hours pages; 10% in a day or in
// 3 days opens a ticket. objective.Status.State is at_risk on pageBurns.
var (
	pageBurns   = []burnAlert{{"1h", "5m", 14.4}, {"6h", "30m", 6}}
	ticketBurns = []burnAlert{{"1d", "2h", 3}, {"3d", "6h", 1}}
)

// replicaLabels are the labels that differ between replicas exporting the
// same objective: the scrape's instance and, under the
// prometheus-operator, the pod. Every other label a scrape adds (job,
// namespace, service, endpoint, container) is the same for the replicas of
// one deployment, and the objective's own labels are its configuration's,
// unknown to static rules: so the objectives' alerts aggregate without
// these, not by a keep-list.
var replicaLabels = []string{"instance", "pod"}

// tolerance is the relative slack of package objective's thresholds: a
// burn rate that is 14.4 in exact arithmetic may be exported a rounding
// error below it, and 2% of a 30-day budget in an hour must page as the
// API's at_risk state says.
const tolerance = 1e-9

// objectiveSeries is metric of the live replicas, aggregated over them
// with agg to the labels that are the same whichever replica exported it.
// window, if not empty, selects one burn window and drops the label, so
// that a long and a short window's series match.
func objectiveSeries(o RuleOptions, agg, metric, window string) string {
	without := replicaLabels
	sel := o.sel(metric)
	if window != "" {
		without = append([]string{"window"}, without...)
		m := fmt.Sprintf("window=%q", window)
		if o.OnlyJob {
			sel = strings.TrimSuffix(sel, "}") + ", " + m + "}"
		} else {
			sel += "{" + m + "}"
		}
	}
	return agg + " without (" + strings.Join(without, ", ") + ") " + live(sel)
}

// burnExpr holds while any of burns does. min over the replicas: an
// objective burns when every live replica that has a figure sees it burn,
// as an app is down when every replica that knows it sees it down; a
// replica whose own view fails (its network, not the app) does not page.
func burnExpr(o RuleOptions, burns []burnAlert) string {
	parts := make([]string, len(burns))
	for i, b := range burns {
		at := fmt.Sprintf(" >= %s", fmtFloat(b.Factor*(1-tolerance)))
		parts[i] = "(\n  " + objectiveSeries(o, "min", "availmon_objective_burn_rate", b.Long) + at +
			"\nand\n  " + objectiveSeries(o, "min", "availmon_objective_burn_rate", b.Short) + at + "\n)"
	}
	return strings.Join(parts, "\nor\n")
}

// breachedExpr holds when the bad time exceeds the budget, as the API's
// breached state: the remaining fraction below zero, or, for a 100% target
// (no budget, so no fraction), any bad time at all.
func breachedExpr(o RuleOptions) string {
	ratio := objectiveSeries(o, "max", "availmon_objective_error_budget_remaining_ratio", "")
	secs := objectiveSeries(o, "max", "availmon_objective_error_budget_remaining_seconds", "")
	return ratio + " < " + fmtFloat(-tolerance) + "\nor\n(" + secs + " < 0\n  unless " + ratio + ")"
}

// fmtFloat writes a threshold to 12 digits: 14.4 less the tolerance is
// 14.3999999856, not the float's 17 digits.
func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', 12, 64) }

// objectiveAnnotations are the annotations of an objective's alert; the
// runbook_url is the objective's own label of that name, empty without.
func objectiveAnnotations(summary, description string) map[string]string {
	return map[string]string{
		"summary":     summary,
		"description": description,
		"runbook_url": "{{ $labels.runbook_url }}",
	}
}

// objectiveAlerts are the alerts about the objectives: one per objective
// and condition, whatever the number of replicas.
func objectiveAlerts(o RuleOptions) []rule {
	return []rule{
		{Alert: "AvailmonObjectiveFastBurn", Expr: burnExpr(o, pageBurns),
			Labels: map[string]string{"severity": "critical"},
			Annotations: objectiveAnnotations(
				"objective {{ $labels.objective }} burns its error budget {{ $value | printf \"%.1f\" }} times as fast as its window allows",
				"availmon's burn rate of objective {{ $labels.objective }} is at least 14.4 over 1h and 5m (2% of a 30-day budget an hour), "+
					"or at least 6 over 6h and 30m (5% in six hours): at this rate its budget is gone in days. "+
					"Unknown time and maintenance burn nothing. Its figures: /api/objectives/{{ $labels.objective }}."),
		},
		{Alert: "AvailmonObjectiveSlowBurn", Expr: burnExpr(o, ticketBurns),
			Labels: map[string]string{"severity": "warning"},
			Annotations: objectiveAnnotations(
				"objective {{ $labels.objective }} burns its error budget {{ $value | printf \"%.1f\" }} times as fast as its window allows",
				"availmon's burn rate of objective {{ $labels.objective }} is at least 3 over 1d and 2h (10% of a 30-day budget a day), "+
					"or at least 1 over 3d and 6h: kept up, the budget runs out before the window ends. "+
					"Unknown time and maintenance burn nothing. Its figures: /api/objectives/{{ $labels.objective }}."),
		},
		{Alert: "AvailmonObjectiveBreached", Expr: breachedExpr(o),
			Labels: map[string]string{"severity": "warning"},
			Annotations: objectiveAnnotations(
				"objective {{ $labels.objective }} has spent its error budget: its target is not met",
				"availmon counts more bad time in the window of objective {{ $labels.objective }} than its target allows "+
					"(for a calendar window: more than even a perfect rest of it can make up). Its figures: /api/objectives/{{ $labels.objective }}."),
		},
	}
}
