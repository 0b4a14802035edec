package promql

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// TagLabel is the label a combined query sets, with label_replace, on the
// series of each of its terms, so that the answer can be split by term.
const TagLabel = "availmon_term"

// termOverhead bounds what combining adds to a term's length:
// label_replace( ..., "availmon_term", "199", "", ""), vector( ) around a
// scalar, the parentheses and " or " of the tree.
const termOverhead = 64

// Query is one request that answers some items of a plan.
type Query struct {
	terms []*term

	once sync.Once
	text string

	// narrow: a wide query whose parts are to be asked instead (Narrow).
	narrow    atomic.Bool
	partsOnce sync.Once
	parts     []*Query

	routeOnce sync.Once
	route     *routing
	itemsOnce sync.Once
	items     []int
}

// term is one part of a query: either one expression asked for its items
// (plain), or a fused selector whose series are told apart by label.
type term struct {
	expr  *Expr // plain: the expression; fused: one of the group's
	items []int // plain: the items asking for expr

	// fused only (label != ""):
	label   string
	values  []string   // distinct; sorted once cut into parts (chunks)
	byValue valueItems // value -> items
	f       fusion
	src     []*Expr // the plan's items, for the parts of one value

	// wide: asked without matchers on label (PlanWide); its parts, cut by maxLen
	// as Plan cuts the group, are made only if Split asks for them.
	wide   bool
	maxLen int
	shard  *labels.Matcher // a wide group's shard: its matcher on label (shards)
	group  int             // a shard: its group's first item
}

// widened is the group's expression without its matchers on the fused
// label: what label=~".*" selects, without a matcher for Prometheus to
// test every value of the label against; a shard's has its own instead.
func (t *term) widened() parser.Expr { return substitute(t.expr.text, t.label, t.shard) }

// widens reports whether the group asked wide is still a query a server
// takes (a selector whose only matcher was the fused label's would have
// none, and Prometheus refuses it) and one that selects a part of what
// the server holds: every selector keeps an equality matcher on a value,
// its metric's name or another label's. Without one, a selector such as
// {__name__=~".+"} or {job!=""} selects about every series there is,
// which the server would read, and likely refuse or time out on, before
// any bound on its answer could tell.
func (t *term) widens() bool {
	e := t.widened()
	if e == nil {
		return false
	}
	if _, err := parser.NewParser(parser.Options{}).ParseExpr(e.String()); err != nil {
		return false
	}
	selective := true
	parser.Inspect(e, func(nd parser.Node, _ []parser.Node) error {
		if vs, ok := nd.(*parser.VectorSelector); ok && !slices.ContainsFunc(vs.LabelMatchers, isEquality) {
			selective = false
		}
		return nil
	})
	return selective
}

// isEquality reports whether m selects one value of its label.
func isEquality(m *labels.Matcher) bool { return m.Type == labels.MatchEqual && m.Value != "" }

// Plan returns the queries that ask for every non-nil item: expressions
// that can be fused by one label are fused, equal expressions asked once,
// and the rest combined, at most maxTerms terms and maxLen bytes to a query
// (an expression longer than maxLen on its own is asked alone). Plan is
// deterministic: the same items give the same queries.
func Plan(items []*Expr, maxLen, maxTerms int) []*Query {
	return plan(items, maxLen, maxTerms, false, 0)
}

// PlanWide is Plan, but a fused group too long for one query of maxLen
// is asked as one query whose selectors keep every value of the label
// (its matchers on the label dropped: label=~".*"), and Route drops the series of values not asked for:
// Prometheus then neither parses nor compiles a regular expression of
// thousands of values, about half its CPU for such a group. A
// wide query's Split gives the group's parts as Plan cuts them, for a
// server whose wide answer is too large: the label may have many more
// values than the group asks for.
//
// A wide group of more than shardValues values is cut in shards (see
// ShardValues), each a query of its own; none is when shardValues is 0
// or less.
func PlanWide(items []*Expr, maxLen, maxTerms, shardValues int) []*Query {
	return plan(items, maxLen, maxTerms, true, shardValues)
}

// plan plans items; when wide, a group too long for a query is asked
// wide, in shards of shardValues values when that is more than 0.
func plan(items []*Expr, maxLen, maxTerms int, wide bool, shardValues int) []*Query {
	maxTerms = max(1, maxTerms)
	count := make(map[string]int)
	for _, e := range items {
		if e == nil {
			continue
		}
		for _, f := range e.fusions() {
			count[f.key]++
		}
	}
	groups := make(map[string]*term)
	plain := make(map[string]*term)
	var terms []*term
	addPlain := func(e *Expr, idx ...int) {
		t := plain[e.printed()]
		if t == nil {
			t = &term{expr: e}
			plain[e.printed()] = t
			terms = append(terms, t)
		}
		t.items = append(t.items, idx...)
	}
	for i, e := range items {
		if e == nil {
			continue
		}
		best := -1
		for k, f := range e.fusions() {
			if count[f.key] >= 2 && (best < 0 || count[f.key] > count[e.fuse[best].key]) {
				best = k
			}
		}
		if best < 0 {
			addPlain(e, i)
			continue
		}
		f := e.fuse[best]
		g := groups[f.key]
		if g == nil {
			g = &term{expr: e, label: f.label(), byValue: newValueItems(0), f: f, src: items}
			groups[f.key] = g
			terms = append(terms, g)
		}
		if g.byValue.add(f.value, i) {
			g.values = append(g.values, f.value)
		}
	}
	var split []*term
	for _, t := range terms {
		if t.label == "" {
			split = append(split, t)
			continue
		}
		if wide && t.length() > maxLen && t.widens() {
			t.wide, t.maxLen = true, maxLen
			split = append(split, t.shards(shardValues)...)
			continue
		}
		split = append(split, t.chunks(maxLen)...)
	}
	// A group whose values all were one value became a plain term that may
	// equal another: merge them, keeping the order of first items.
	terms = terms[:0]
	plain = make(map[string]*term)
	for _, t := range split {
		if t.label != "" {
			terms = append(terms, t)
			continue
		}
		addPlain(t.expr, t.items...)
	}
	slices.SortFunc(terms, func(a, b *term) int { return cmp.Compare(a.first(), b.first()) })
	return pack(terms, maxLen, maxTerms)
}

// chunks splits a fused group so that each part stays within maxLen; a
// part of one value is a plain term. The group's values are cut in the
// order of their first items, and only each part's sorted: apps listed
// together then make parts whose items are runs, which the monitor hands
// to Check as they are rather than copied every cycle (app names sorted
// as text, "app-10" before "app-2", would scatter every part over the
// list).
func (t *term) chunks(maxLen int) []*term {
	base := t.fused("").lenTagged()
	var out []*term
	start, size := 0, base
	cut := func(values []string) {
		slices.Sort(values)
		out = append(out, t.part(values))
	}
	for i, v := range t.values {
		c := valueCost(v, t.f.matchers)
		if i > start && size+c > maxLen {
			cut(t.values[start:i])
			start, size = i, base
		}
		size += c
	}
	cut(t.values[start:])
	return out
}

// valueCost is what one more value adds to the printed regular expression:
// its escaped, quoted form and a "|", once per matcher.
func valueCost(v string, matchers int) int {
	return (len(strconv.Quote(regexp.QuoteMeta(v))) - 2 + 1) * matchers
}

// part is the group narrowed to values.
func (t *term) part(values []string) *term {
	if len(values) == 1 {
		idx := t.byValue.appendTo(nil, values[0])
		return &term{expr: t.src[idx[0]], items: idx}
	}
	return &term{expr: t.expr, label: t.label, f: t.f, src: t.src, values: values, byValue: t.byValue.subset(values)}
}

func (t *term) first() int {
	if t.label == "" {
		return t.items[0]
	}
	m := -1
	t.byValue.each(func(idx []int) {
		if m < 0 || idx[0] < m {
			m = idx[0]
		}
	})
	return m
}

// fused is the group's expression with label=~"v1|v2|..." in place of
// label="value", built on a fresh syntax tree.
func (t *term) fused(regex string) fusedExpr {
	return fusedExpr{substitute(t.expr.text, t.label, &labels.Matcher{Type: labels.MatchRegexp, Name: t.label, Value: regex})}
}

type fusedExpr struct{ parser.Expr }

func (f fusedExpr) lenTagged() int { return len(f.String()) + termOverhead }

// regex matches exactly the values: each is quoted (Prometheus anchors
// the whole expression, as ^(?:...)$).
func regex(values []string) string {
	var b strings.Builder
	for i, v := range values {
		if i > 0 {
			b.WriteByte('|')
		}
		b.WriteString(regexp.QuoteMeta(v))
	}
	return b.String()
}

// length bounds the term's printed length within a combined query.
func (t *term) length() int {
	if t.label == "" {
		return len(t.expr.printed()) + termOverhead
	}
	n := t.fused("").lenTagged()
	if t.wide {
		return n // more than its own: it is alone in its query
	}
	for _, v := range t.values {
		n += valueCost(v, t.f.matchers)
	}
	return n
}

// pack fills queries with terms in order.
func pack(terms []*term, maxLen, maxTerms int) []*Query {
	var out []*Query
	var cur *Query
	size := 0
	for _, t := range terms {
		n := t.length()
		if cur == nil || len(cur.terms) >= maxTerms || size+n > maxLen || t.wide || cur.terms[0].wide {
			cur = &Query{}
			out = append(out, cur)
			size = 0
		}
		cur.terms = append(cur.terms, t)
		size += n
	}
	return out
}

// node is the term as a syntax tree; tagged terms must be instant vectors.
func (t *term) node(tagged bool) parser.Expr {
	if t.wide {
		return t.widened()
	}
	if t.label != "" {
		return t.fused(regex(t.values)).Expr
	}
	if tagged && t.expr.Scalar() {
		return &parser.Call{Func: parser.Functions["vector"], Args: parser.Expressions{t.expr.tree()}}
	}
	return t.expr.tree()
}

// String returns the query to send (built once; a Query is immutable but for Narrow): one term as it is, several tagged with
// label_replace and joined with "or" as a balanced tree. Prometheus
// evaluates a chain "a or b or c ..." left to right, copying and hashing
// the growing left side at every step: quadratic in the number of terms.
func (q *Query) String() string {
	q.once.Do(func() { q.text = q.build() })
	return q.text
}

func (q *Query) build() string {
	if len(q.terms) == 1 {
		if t := q.terms[0]; t.label == "" {
			return t.expr.printed()
		}
		return q.terms[0].node(false).String()
	}
	nodes := make([]parser.Expr, len(q.terms))
	for k, t := range q.terms {
		nodes[k] = tag(t.node(true), k)
	}
	return orTree(nodes).String()
}

func orTree(nodes []parser.Expr) parser.Expr {
	if len(nodes) == 1 {
		return nodes[0]
	}
	half := len(nodes) / 2
	return &parser.ParenExpr{Expr: &parser.BinaryExpr{
		Op:             parser.LOR,
		LHS:            orTree(nodes[:half]),
		RHS:            orTree(nodes[half:]),
		VectorMatching: &parser.VectorMatching{Card: parser.CardManyToMany},
	}}
}

// Wide reports whether q is a group asked wide (PlanWide): its answer may
// hold series of many values not asked for, which Route drops.
func (q *Query) Wide() bool { return len(q.terms) == 1 && q.terms[0].wide }

// Shard reports whether q is a shard of a wide group (PlanWide cuts a
// group of many values in shards) and which: the shards of one group have
// the same group number, and are best asked at once. The same items give
// the same shards, so a call asking for a group's items plans its shards
// again.
func (q *Query) Shard() (group int, ok bool) {
	if !q.Wide() || q.terms[0].shard == nil {
		return 0, false
	}
	return q.terms[0].group, true
}

// Narrow marks a wide query as one to ask by its parts (Split) from now
// on: its answer was too large, or mostly series not asked for. It is the
// one thing about a Query that changes, so that a plan kept for later
// cycles keeps the verdict; it is safe for concurrent use.
func (q *Query) Narrow() { q.narrow.Store(true) }

// Narrowed reports whether Narrow was called.
func (q *Query) Narrowed() bool { return q.narrow.Load() }

// Items returns the items the query answers, in ascending order. The
// slice is the query's own (built once): callers must not change it.
func (q *Query) Items() []int {
	q.itemsOnce.Do(func() {
		for _, t := range q.terms {
			q.items = append(q.items, t.allItems()...)
		}
		slices.Sort(q.items)
	})
	return q.items
}

func (t *term) allItems() []int {
	if t.label == "" {
		return t.items
	}
	var out []int
	for _, v := range t.values {
		out = t.byValue.appendTo(out, v)
	}
	return out
}

// Split returns smaller queries that together ask what q asks, to find the
// expression a server refuses: the halves of its terms, or of its fused
// values. It returns nil when q is one expression. A wide query's are the
// parts of its group as Plan cuts them.
func (q *Query) Split() []*Query {
	switch {
	case q.Wide():
		q.partsOnce.Do(func() {
			// chunks sorts each part's values in place: on a copy, as
			// the wide term's are read by other calls meanwhile.
			t := *q.terms[0]
			t.values = slices.Clone(t.values)
			for _, p := range t.chunks(t.maxLen) {
				q.parts = append(q.parts, &Query{terms: []*term{p}})
			}
		})
		return q.parts
	case len(q.terms) > 1:
		half := len(q.terms) / 2
		return []*Query{{terms: q.terms[:half]}, {terms: q.terms[half:]}}
	case q.terms[0].label != "" && len(q.terms[0].values) > 1:
		t := q.terms[0]
		half := len(t.values) / 2
		return []*Query{
			{terms: []*term{t.part(t.values[:half])}},
			{terms: []*term{t.part(t.values[half:])}},
		}
	}
	return nil
}
