package promql

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// A fusion is a way to ask for an expression together with others: every
// matcher on label in its selectors is label="value", and the syntax tree
// keeps label on every series it returns, computing each from series with
// the same value only. Then asking with label=~"v1|v2|..." instead returns,
// among the series labelled vi, exactly what the expression with vi alone
// returns; expressions whose key is equal differ only in that value.
type fusion struct {
	value string
	// key is the label, a NUL and the expression printed with the value
	// left out: the label is not kept apart, as there is a fusion per app
	// and 48 bytes hold it where 64 would hold the label too.
	key      string
	matchers int // how many matchers carry the value
}

// label is the label name the fusion tells apps apart by: label names hold
// no NUL.
func (f *fusion) label() string { return f.key[:strings.IndexByte(f.key, 0)] }

// fusions lists the ways e can be fused, by label name.
func (e *Expr) fusions() []fusion {
	return e.fuse
}

func findFusions(text string, node parser.Expr) []fusion {
	if node.Type() != parser.ValueTypeVector {
		return nil // a scalar has no label to tell apps apart by
	}
	var out []fusion
	for _, label := range candidateLabels(node) {
		value, n, ok := soleValue(node, label)
		if !ok || classify(node, label) != keeps {
			continue
		}
		tmpl := substitute(text, label, &labels.Matcher{Type: labels.MatchEqual, Name: label})
		if tmpl == nil {
			continue
		}
		out = append(out, fusion{value: value, key: label + "\x00" + tmpl.String(), matchers: n})
	}
	return out
}

// candidateLabels are the labels of the equality matchers of node's
// selectors, sorted; the metric name and our own tag are never fused.
func candidateLabels(node parser.Node) []string {
	var names []string
	parser.Inspect(node, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			for _, m := range vs.LabelMatchers {
				if m.Type == labels.MatchEqual && m.Name != labels.MetricName && m.Name != TagLabel {
					names = append(names, m.Name)
				}
			}
		}
		return nil
	})
	slices.Sort(names)
	return slices.Compact(names)
}

// soleValue reports the one value every matcher on label in node has, and
// how many such matchers there are: each must be label="value", one per
// selector, and value non-empty (label="" also selects series without the
// label, which could not be mapped back) and valid UTF-8.
func soleValue(node parser.Node, label string) (value string, n int, ok bool) {
	ok = true
	parser.Inspect(node, func(nd parser.Node, _ []parser.Node) error {
		vs, isSel := nd.(*parser.VectorSelector)
		if !isSel {
			return nil
		}
		seen := 0
		for _, m := range vs.LabelMatchers {
			if m.Name != label {
				continue
			}
			seen++
			if m.Type != labels.MatchEqual || m.Value == "" || !utf8.ValidString(m.Value) || (n > 0 && m.Value != value) {
				ok = false
			}
			value = m.Value
			n++
		}
		if seen > 1 {
			ok = false
		}
		return nil
	})
	return value, n, ok && n > 0
}

// substitute parses text afresh and puts m in place of every matcher on
// label, or drops them when m is nil: the parsed Expr is shared and never
// changed.
func substitute(text, label string, m *labels.Matcher) parser.Expr {
	node, err := parser.NewParser(parser.Options{}).ParseExpr(text)
	if err != nil {
		return nil
	}
	parser.Inspect(node, func(nd parser.Node, _ []parser.Node) error {
		if vs, ok := nd.(*parser.VectorSelector); ok {
			kept := vs.LabelMatchers[:0]
			for _, old := range vs.LabelMatchers {
				switch {
				case old.Name != label:
					kept = append(kept, old)
				case m != nil:
					kept = append(kept, m)
				}
			}
			vs.LabelMatchers = kept
		}
		return nil
	})
	return node
}

// How a subtree depends on the value of the fused label.
type dependence int

const (
	// constant: it does not depend on the value at all.
	constant dependence = iota
	// keeps: every series it returns carries the label, and is computed
	// from input series with the same value only.
	keeps
	// mixed: any other dependence; such an expression is not fused.
	mixed
)

// perSeries are the functions that compute each output series from the
// input series with the same labels (the metric name aside), so they keep
// every label but the name. absent, absent_over_time, vector, scalar and
// the like are not among them.
var perSeries = map[string]bool{
	"abs": true, "ceil": true, "floor": true, "exp": true, "ln": true, "log2": true, "log10": true,
	"sqrt": true, "round": true, "clamp": true, "clamp_max": true, "clamp_min": true, "sgn": true,
	"timestamp": true, "deg": true, "rad": true,
	"acos": true, "acosh": true, "asin": true, "asinh": true, "atan": true, "atanh": true,
	"cos": true, "cosh": true, "sin": true, "sinh": true, "tan": true, "tanh": true,
	"day_of_month": true, "day_of_week": true, "day_of_year": true, "days_in_month": true,
	"hour": true, "minute": true, "month": true, "year": true,
	"changes": true, "resets": true, "delta": true, "deriv": true, "idelta": true, "increase": true,
	"irate": true, "rate": true, "predict_linear": true,
	"avg_over_time": true, "min_over_time": true, "max_over_time": true, "sum_over_time": true,
	"count_over_time": true, "quantile_over_time": true, "stddev_over_time": true,
	"stdvar_over_time": true, "last_over_time": true, "present_over_time": true,
	"sort": true, "sort_desc": true, "label_replace": true, "label_join": true,
	"histogram_quantile": true, "histogram_fraction": true, "histogram_count": true,
	"histogram_sum": true, "histogram_avg": true, "histogram_stddev": true, "histogram_stdvar": true,
}

// groupingAggregations compute one series per group of the by/without
// labels, from that group's series only.
var groupingAggregations = map[parser.ItemType]bool{
	parser.SUM: true, parser.AVG: true, parser.MIN: true, parser.MAX: true, parser.COUNT: true,
	parser.GROUP: true, parser.STDDEV: true, parser.STDVAR: true, parser.QUANTILE: true,
	parser.TOPK: true, parser.BOTTOMK: true, parser.COUNT_VALUES: true,
}

// classify says how node depends on label's value. It errs towards mixed:
// a node it does not know is constant only when nothing below it depends on
// the value.
func classify(node parser.Node, label string) dependence {
	switch n := node.(type) {
	case *parser.VectorSelector:
		for _, m := range n.LabelMatchers {
			if m.Name == label {
				return keeps
			}
		}
		return constant
	case *parser.MatrixSelector:
		return classify(n.VectorSelector, label)
	case *parser.SubqueryExpr:
		return classify(n.Expr, label)
	case *parser.ParenExpr:
		return classify(n.Expr, label)
	case *parser.UnaryExpr:
		return classify(n.Expr, label)
	case *parser.NumberLiteral, *parser.StringLiteral:
		return constant
	case *parser.Call:
		return classifyCall(n, label)
	case *parser.AggregateExpr:
		return classifyAggregate(n, label)
	case *parser.BinaryExpr:
		return classifyBinary(n, label)
	}
	for child := range parser.ChildrenIter(node) {
		if classify(child, label) != constant {
			return mixed
		}
	}
	return constant
}

func classifyCall(n *parser.Call, label string) dependence {
	result := constant
	for i, arg := range n.Args {
		switch d := classify(arg, label); {
		case d == constant:
		case d == keeps && (arg.Type() == parser.ValueTypeVector || arg.Type() == parser.ValueTypeMatrix):
			result = keeps
		default:
			return mixed
		}
		if i == 1 && (n.Func.Name == "label_replace" || n.Func.Name == "label_join") {
			// The destination label: overwriting the fused one would
			// mix the apps' series.
			if s, ok := arg.(*parser.StringLiteral); !ok || s.Val == label {
				return mixed
			}
		}
	}
	if result == constant {
		return constant
	}
	if !perSeries[n.Func.Name] || (label == labels.BucketLabel && n.Func.Name == "histogram_quantile") {
		return mixed
	}
	return keeps
}

func classifyAggregate(n *parser.AggregateExpr, label string) dependence {
	inner := classify(n.Expr, label)
	param := constant
	if n.Param != nil {
		param = classify(n.Param, label)
	}
	switch {
	case inner == constant && param == constant:
		return constant
	case inner != keeps || param != constant || !groupingAggregations[n.Op]:
		return mixed
	case n.Without == slices.Contains(n.Grouping, label):
		return mixed // the label is aggregated away
	case n.Op == parser.COUNT_VALUES:
		if s, ok := n.Param.(*parser.StringLiteral); !ok || s.Val == label {
			return mixed
		}
	}
	return keeps
}

func classifyBinary(n *parser.BinaryExpr, label string) dependence {
	l, r := classify(n.LHS, label), classify(n.RHS, label)
	switch {
	case l == constant && r == constant:
		return constant
	case l == mixed || r == mixed:
		return mixed
	case n.LHS.Type() == parser.ValueTypeScalar || n.RHS.Type() == parser.ValueTypeScalar:
		// vector op scalar: per series, if the scalar is the same for all.
		if l == keeps && r == constant || l == constant && r == keeps {
			return keeps
		}
		return mixed
	}
	// vector op vector: series are matched by their labels, so the result
	// is per app when the label is part of the match...
	matchesLabel := n.VectorMatching == nil || n.VectorMatching.On == slices.Contains(n.VectorMatching.MatchingLabels, label)
	switch {
	case l == keeps && r == keeps && matchesLabel:
		return keeps
	case l == keeps && r == constant && (n.Op == parser.LAND || n.Op == parser.LUNLESS):
		// ...or when the right side only filters, the same for every app.
		return keeps
	}
	return mixed
}

// Share makes e's fusion labels and keys the copies held in seen, adding
// its own where seen has none, and its values part of its text where they
// appear in it as written. Thousands of apps' expressions fuse under one
// key, and each parse made its own copy of it.
func (e *Expr) Share(seen map[string]string) {
	for i := range e.fuse {
		f := &e.fuse[i]
		f.key = shared(seen, f.key)
		if j := strings.Index(e.text, f.value); j >= 0 {
			f.value = e.text[j : j+len(f.value)]
		}
	}
}

func shared(seen map[string]string, s string) string {
	if v, ok := seen[s]; ok {
		return v
	}
	seen[s] = s
	return s
}
