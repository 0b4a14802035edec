package promql

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/prometheus/common/model"
)

// routing tells which items a series of q's answer belongs to, from the
// values of a few labels only, so that an answer need not be decoded into
// label maps. A route is named by the first of its items (an item belongs
// to one route only): a fused term's values are looked up in the term's
// own map, not in a copy of it, and a route of one item, as most are,
// needs nothing more. There is one item per app, so the copy was most of
// a plan's memory after the terms themselves.
type routing struct {
	labels []string // TagLabel first when q has several terms, then the fused labels
	terms  []termRoute
	single []int         // single[i-lo] == i: Routed's answer for a route of one item
	lo     int           // the least item of q
	multi  map[int][]int // the routes of several items, by their first
}

type termRoute struct {
	t     *term
	label int // index in labels of a fused term's label
}

func (q *Query) routing() *routing {
	q.routeOnce.Do(func() { q.route = newRouting(q.terms) })
	return q.route
}

func newRouting(terms []*term) *routing {
	r := &routing{terms: make([]termRoute, len(terms)), multi: make(map[int][]int)}
	if len(terms) > 1 {
		r.labels = append(r.labels, TagLabel)
	}
	lo, hi := math.MaxInt, -1
	route := func(items []int) {
		if len(items) > 1 {
			r.multi[items[0]] = items
		}
		lo, hi = min(lo, slices.Min(items)), max(hi, slices.Max(items))
	}
	for k, t := range terms {
		r.terms[k].t = t
		if t.label == "" {
			route(t.items)
			continue
		}
		r.terms[k].label = r.labelIndex(t.label)
		t.byValue.each(route)
	}
	if hi >= lo {
		r.lo, r.single = lo, make([]int, hi-lo+1)
		for i := range r.single {
			r.single[i] = lo + i
		}
	}
	return r
}

func (r *routing) labelIndex(name string) int {
	for i, l := range r.labels {
		if l == name {
			return i
		}
	}
	r.labels = append(r.labels, name)
	return len(r.labels) - 1
}

// Labels returns the names of the labels Route needs of each series.
func (q *Query) Labels() []string { return q.routing().labels }

// Route returns the route of a series whose labels named by Labels have
// values (in that order, empty when the series lacks one), or -1 when the
// series answers no item: a tag that is not one of q's terms, a fused
// label's value that was not asked for.
func (q *Query) Route(values [][]byte) int {
	r := q.routing()
	k := 0
	if len(r.terms) > 1 {
		var err error
		if k, err = strconv.Atoi(string(values[0])); err != nil || k < 0 || k >= len(r.terms) {
			return -1
		}
	}
	tr := &r.terms[k]
	if tr.t.label != "" {
		x, ok := tr.t.byValue.m[string(values[tr.label])]
		if !ok {
			return -1
		}
		return tr.t.byValue.firstOf(x)
	}
	if len(tr.t.items) == 0 {
		return -1
	}
	return tr.t.items[0]
}

// Routed returns the items of a route Route returned.
func (q *Query) Routed(route int) []int {
	r := q.routing()
	if items, ok := r.multi[route]; ok {
		return items
	}
	i := route - r.lo
	return r.single[i : i+1 : i+1]
}

// Check returns an error unless t is what q's answer may be. Only one
// expression asked as it is may answer with a scalar; a combined or fused
// query is an instant vector, whatever a faulty server or proxy says.
// ValNone, an answer without data, has no series and passes.
func (q *Query) Check(t model.ValueType) error {
	want := model.ValVector
	if t := q.terms[0]; len(q.terms) == 1 && t.label == "" && t.expr.Scalar() {
		want = model.ValScalar
	}
	if t != model.ValNone && t != want {
		return fmt.Errorf("expression returns a %s, not %s", t, article(want))
	}
	return nil
}

// Answer hands each sample of v to the items it answers. v is what the
// server returned for q.
func (q *Query) Answer(v model.Value, add func(item int, s *model.Sample)) error {
	var vec model.Vector
	t := model.ValNone
	switch v := v.(type) {
	case nil:
	case model.Vector:
		vec, t = v, model.ValVector
	case *model.Scalar:
		vec, t = model.Vector{{Value: v.Value, Timestamp: v.Timestamp}}, model.ValScalar
	default:
		t = v.Type()
	}
	if err := q.Check(t); err != nil {
		return err
	}
	labels := q.Labels()
	values := make([][]byte, len(labels))
	for _, s := range vec {
		if s == nil {
			return fmt.Errorf("the answer holds a null sample")
		}
		for i, l := range labels {
			values[i] = []byte(s.Metric[model.LabelName(l)])
		}
		if r := q.Route(values); r >= 0 {
			for _, it := range q.Routed(r) {
				add(it, s)
			}
		}
	}
	return nil
}

func article(t model.ValueType) string {
	if t == model.ValScalar {
		return "a scalar"
	}
	return "an instant vector"
}
