package promexport

import "github.com/prometheus/client_golang/prometheus"

// Objective is one objective's figures (package objective). A missing
// figure (no counted time, a 100% target) is nil, and its series absent.
type Objective struct {
	Name string
	// Labels are the values of Snapshot.ObjectiveLabels, in that order;
	// an objective without one has it empty.
	Labels           []string
	Target           float64
	Attainment       *float64
	RemainingRatio   *float64
	RemainingSeconds float64
	// Burn are the burn rates over BurnWindows, in that order.
	Burn [7]*float64
	// State is "ok", "at_risk" or "breached".
	State string
}

// BurnWindows are the trailing windows of Objective.Burn, the values of
// availmon_objective_burn_rate's window label.
var BurnWindows = [7]string{"5m", "30m", "1h", "2h", "6h", "1d", "3d"}

// ObjectiveStates are the values of availmon_objective_state's state label.
var ObjectiveStates = [3]string{"ok", "at_risk", "breached"}

// Metric names of the objectives.
const (
	NameObjectiveTarget        = "availmon_objective_target_ratio"
	NameObjectiveAttainment    = "availmon_objective_attainment_ratio"
	NameObjectiveBudgetRatio   = "availmon_objective_error_budget_remaining_ratio"
	NameObjectiveBudgetSeconds = "availmon_objective_error_budget_remaining_seconds"
	NameObjectiveBurnRate      = "availmon_objective_burn_rate"
	NameObjectiveState         = "availmon_objective_state"
)

// objectiveDescs are the objectives' families for a set of label names:
// objective and the union of every objective's label names, which change
// with the configuration, so they are made for each snapshot.
type objectiveDescs struct {
	target, attainment, budgetRatio, budgetSeconds, burn, state *prometheus.Desc
}

func newObjectiveDescs(labels []string) objectiveDescs {
	l := append([]string{"objective"}, labels...)
	with := func(extra string) []string { return append(append([]string(nil), l...), extra) }
	return objectiveDescs{
		target: prometheus.NewDesc(NameObjectiveTarget,
			"An objective's target: the share of its counted time promised good.", l, nil),
		attainment: prometheus.NewDesc(NameObjectiveAttainment,
			"An objective's attainment so far in its window: up time over up and down time; absent without counted time.", l, nil),
		budgetRatio: prometheus.NewDesc(NameObjectiveBudgetRatio,
			"The share of an objective's error budget left in its window: 1 untouched, 0 spent, below 0 overspent; absent when the budget is 0.", l, nil),
		budgetSeconds: prometheus.NewDesc(NameObjectiveBudgetSeconds,
			"The error budget left in an objective's window, in seconds of down time; below 0 overspent.", l, nil),
		burn: prometheus.NewDesc(NameObjectiveBurnRate,
			"How fast an objective's error budget burns over a trailing window: 1 spends it in exactly the objective's window; absent without counted time in it.", with("window"), nil),
		state: prometheus.NewDesc(NameObjectiveState,
			"An objective's state: 1 for the current one of ok, at_risk (a page-level burn) and breached, 0 for the others.", with("state"), nil),
	}
}

func (d *objectiveDescs) list() []*prometheus.Desc {
	return []*prometheus.Desc{d.target, d.attainment, d.budgetRatio, d.budgetSeconds, d.burn, d.state}
}

func (d *objectiveDescs) collect(ch chan<- prometheus.Metric, s *Snapshot) {
	gauge := func(desc *prometheus.Desc, v float64, lv []string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, lv...)
	}
	for _, o := range s.Objectives {
		lv := append([]string{o.Name}, o.Labels...)
		gauge(d.target, o.Target, lv)
		if o.Attainment != nil {
			gauge(d.attainment, *o.Attainment, lv)
		}
		if o.RemainingRatio != nil {
			gauge(d.budgetRatio, *o.RemainingRatio, lv)
		}
		gauge(d.budgetSeconds, o.RemainingSeconds, lv)
		for k, w := range BurnWindows {
			if o.Burn[k] != nil {
				gauge(d.burn, *o.Burn[k], append(lv[:len(lv):len(lv)], w))
			}
		}
		for _, st := range ObjectiveStates {
			v := 0.0
			if st == o.State {
				v = 1
			}
			gauge(d.state, v, append(lv[:len(lv):len(lv)], st))
		}
	}
}

// Objectives returns a collector of the objectives' families of the
// current snapshot, for a Registerer: it describes nothing (it is
// unchecked), as its label names follow the configuration.
func (e *Exporter) Objectives() prometheus.Collector { return objectiveCollector{e} }

type objectiveCollector struct{ e *Exporter }

func (objectiveCollector) Describe(chan<- *prometheus.Desc) {}

func (c objectiveCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.e.snapshot()
	if s == nil {
		return
	}
	d := newObjectiveDescs(s.ObjectiveLabels)
	d.collect(ch, s)
}
