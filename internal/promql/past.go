package promql

import (
	"strconv"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql/parser"
)

// MinString returns a query that asks, for each item q answers, the
// smallest value of its expression as one series: a fused term as
// min by (label) (selector with label=~"v1|v2|..."), one series per value,
// the others as min(expr) (a scalar wrapped in vector() first). Several
// terms are tagged and joined as String joins them. Over a range, a zero
// anywhere in an item's expression is then a zero in its series, as a
// cycle reads a zero anywhere as down. ItemsOf maps the answer's series
// back to items.
func (q *Query) MinString() string { return q.minTree().String() }

func (t *term) minNode() parser.Expr {
	if t.label != "" {
		return &parser.AggregateExpr{Op: parser.MIN, Expr: t.fused(regex(t.values)).Expr, Grouping: []string{t.label}}
	}
	return &parser.AggregateExpr{Op: parser.MIN, Expr: t.node(true)}
}

func tag(n parser.Expr, k int) parser.Expr {
	return &parser.Call{Func: parser.Functions["label_replace"], Args: parser.Expressions{
		n,
		&parser.StringLiteral{Val: TagLabel},
		&parser.StringLiteral{Val: strconv.Itoa(k)},
		&parser.StringLiteral{Val: ""},
		&parser.StringLiteral{Val: ""},
	}}
}

// ItemsOf returns the items a series of the answer to MinString belongs
// to; nil for a series q did not ask for.
func (q *Query) ItemsOf(m model.Metric) []int {
	k := 0
	if len(q.terms) > 1 {
		var err error
		if k, err = strconv.Atoi(string(m[TagLabel])); err != nil || k < 0 || k >= len(q.terms) {
			return nil
		}
	}
	t := q.terms[k]
	if t.label == "" {
		return t.items
	}
	return t.byValue[string(m[model.LabelName(t.label)])]
}

// The backfill's queries over a plan's query q, built as syntax trees
// around the tree of MinString (T below).

// PresentString is count(T): how many of q's series have a sample. Over
// a range with a coarse step it finds where the backend's data begins.
func (q *Query) PresentString() string {
	return (&parser.AggregateExpr{Op: parser.COUNT, Expr: q.minTree()}).String()
}

// CountString is count_values(label, T != bool 0): per step, how many of
// q's series are up (label "1") and down (label "0"). A NaN counts as up.
func (q *Query) CountString(label string) string {
	return (&parser.AggregateExpr{Op: parser.COUNT_VALUES, Param: &parser.StringLiteral{Val: label}, Expr: q.upTree()}).String()
}

// UpString is sum_over_time((T != bool 0)[window:step]): per series, the
// steps of the window it was up at. Evaluated at t, the subquery's steps
// are the multiples of step in [t-window, t] (Prometheus 2.x; (t-window, t]
// in 3.x and VictoriaMetrics): evaluate it half a step after a multiple of
// step and both read the same window/step steps.
func (q *Query) UpString(window, step time.Duration) string {
	return overTime("sum_over_time", q.upTree(), window, step)
}

// SamplesString is count_over_time(T[window:step]): per series, the steps
// of the window it had a sample at; see UpString.
func (q *Query) SamplesString(window, step time.Duration) string {
	return overTime("count_over_time", q.minTree(), window, step)
}

func (q *Query) minTree() parser.Expr {
	if len(q.terms) == 1 {
		return q.terms[0].minNode()
	}
	nodes := make([]parser.Expr, len(q.terms))
	for k, t := range q.terms {
		nodes[k] = tag(t.minNode(), k)
	}
	return orTree(nodes)
}

func (q *Query) upTree() parser.Expr {
	return &parser.BinaryExpr{Op: parser.NEQ, ReturnBool: true,
		LHS: &parser.ParenExpr{Expr: q.minTree()}, RHS: &parser.NumberLiteral{Val: 0}}
}

func overTime(fn string, e parser.Expr, window, step time.Duration) string {
	return (&parser.Call{Func: parser.Functions[fn], Args: parser.Expressions{
		&parser.SubqueryExpr{Expr: &parser.ParenExpr{Expr: e}, Range: window, Step: step},
	}}).String()
}
