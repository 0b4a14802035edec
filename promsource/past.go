package promsource

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/errtext"
	"github.com/availmon/availmon/internal/promql"
)

var (
	_ availmon.PastSource  = (*Source)(nil)
	_ availmon.PastAdopter = (*Source)(nil)
	_ availmon.PastStater  = (*pastQuery)(nil)
	_ availmon.PastScope   = (*pastQuery)(nil)
	_ availmon.PastJoiner  = (*pastQuery)(nil)
)

// v1.API answers range queries; a Source's api is one.
var _ rangeQuerier = v1.API(nil)

// rangeQuerier is the range call of the v1 API.
type rangeQuerier interface {
	QueryRange(ctx context.Context, query string, r v1.Range, opts ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error)
}

// pastQuery is one query of the cycle planner (fused selectors, equal
// expressions asked once, the rest combined) asked over the past: each of
// its items is one distinct expression, asked by weight apps each, so that
// what the server counts per series counts weight apps.
type pastQuery struct {
	src    *Source
	q      *promql.Query
	apps   [][]int        // per item of q: the apps (indexes into PlanPast's apps) asking it
	items  []*promql.Expr // the items q was planned from (shared by the queries of one weight)
	plan   *pastPlan      // what the PlanPast call that planned q planned, for States' parts
	weight int
	series int // items of q
	// single[k]: term k of q had one series per app at every step of
	// the probe, so its apps are counted as its series: grouping every
	// series by app at every step is what costs the server most.
	single []bool
}

// pastPlan is what one PlanPast call planned: every distinct expression
// of its apps, of every weight, and the apps asking each. A question of
// some apps (States with PastRange.Apps) is planned afresh from it, so
// that it may name apps of any of the call's queries: a state is told per
// expression, whatever its weight, which only Counts multiplies by.
type pastPlan struct {
	items []*promql.Expr
	apps  [][]int // per item: the apps (indexes into PlanPast's apps) asking it
}

// The backfill asks for minute counts in queries of at most pastPoints
// points (series times steps): a query of 3,000 fused series over a day
// (1,440 steps) is well inside Prometheus's 2m query timeout on a loaded
// machine; a query of a few series asks up to maxStepsPerQuery steps (7
// days).
const pastPoints = 4_500_000

// Prometheus refuses a range query of more than 11,000 points per series.
const maxStepsPerQuery = 10_000

// MaxSteps bounds a Counts question to pastPoints points.
func (pq *pastQuery) MaxSteps() int {
	return min(maxStepsPerQuery, max(60, pastPoints/max(1, pq.series)))
}

// AdoptPast asks q, planned by another Source, through s.
func (s *Source) AdoptPast(q availmon.PastQuery) (availmon.PastQuery, bool) {
	pq, ok := q.(*pastQuery)
	if !ok {
		return nil, false
	}
	next := *pq
	next.src = s
	return &next, true
}

// pastMaxLen leaves room, below the source's longest query, for what the
// backfill wraps around a planned query (min by, subqueries).
func (s *Source) pastMaxLen() int { return s.maxQueryLen * 7 / 8 }

// PlanPast plans apps' expressions as the cycles do, after grouping the
// distinct expressions by how many apps ask each: a query then holds
// expressions of one weight only. It takes the parsed expressions the
// cycles' plans hold, and keeps none in the cache: a cycle asks the cache
// for nothing once its batch is planned, and the backfill's queries hold
// their own.
func (s *Source) PlanPast(apps []availmon.App) []availmon.PastQuery {
	byKey := make(map[string][]int)
	exprs := make(map[string]*promql.Expr)
	held := s.plans.held()
	var keys []string
	for i, a := range apps {
		e, err := s.exprs.lookup(a.Metric, held)
		if err != nil {
			continue
		}
		k := e.Key()
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
			exprs[k] = e
		}
		byKey[k] = append(byKey[k], i)
	}
	// Stable order: by weight, then by first app.
	slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(len(byKey[a]), len(byKey[b])) })
	plan := &pastPlan{items: make([]*promql.Expr, len(keys)), apps: make([][]int, len(keys))}
	for i, k := range keys {
		plan.items[i], plan.apps[i] = exprs[k], byKey[k]
	}
	var out []availmon.PastQuery
	for start := 0; start < len(keys); {
		w := len(byKey[keys[start]])
		end := start
		for end < len(keys) && len(byKey[keys[end]]) == w {
			end++
		}
		items := make([]*promql.Expr, end-start)
		owners := make([][]int, end-start)
		for j, k := range keys[start:end] {
			items[j], owners[j] = exprs[k], byKey[k]
		}
		for _, q := range promql.Plan(items, s.pastMaxLen(), BatchSize) {
			out = append(out, &pastQuery{src: s, q: q, apps: owners, items: items, plan: plan, weight: w,
				series: len(q.Items())})
		}
		start = end
	}
	return out
}

// queryRange asks q over r, in consecutive ranges of at most
// maxStepsPerQuery steps when r has more: Prometheus refuses a range of
// more than 11,000 steps as bad input, whatever asked for it (a caller's
// step arithmetic, a clock far from the server's), and asked again it
// refuses again. The parts' series are joined by their labels.
func (s *Source) queryRange(ctx context.Context, q string, r v1.Range) (model.Matrix, error) {
	if r.Step <= 0 || r.End.Sub(r.Start)/r.Step <= maxStepsPerQuery {
		return s.queryRangeOnce(ctx, q, r)
	}
	var out model.Matrix
	at := make(map[model.Fingerprint]int)
	span := maxStepsPerQuery * r.Step
	for from := r.Start; !from.After(r.End); from = from.Add(span + r.Step) {
		part := v1.Range{Start: from, End: from.Add(span), Step: r.Step}
		if part.End.After(r.End) {
			part.End = r.End
		}
		mat, err := s.queryRangeOnce(ctx, q, part)
		if err != nil {
			return nil, err
		}
		for _, ss := range mat {
			fp := ss.Metric.Fingerprint()
			if i, ok := at[fp]; ok {
				out[i].Values = append(out[i].Values, ss.Values...)
				continue
			}
			at[fp] = len(out)
			out = append(out, ss)
		}
	}
	return out, nil
}

func (s *Source) queryRangeOnce(ctx context.Context, q string, r v1.Range) (model.Matrix, error) {
	rq, ok := s.api.(rangeQuerier)
	if !ok {
		return nil, errors.New("backend cannot answer range queries")
	}
	var opts []v1.Option
	if dl, ok := ctx.Deadline(); ok {
		// Let the server give up too, rather than keep evaluating a query
		// nobody waits for.
		opts = append(opts, v1.WithTimeout(serverTimeout(time.Until(dl))))
	}
	v, warnings, _, err := rq.QueryRange(ctx, q, r, opts...)
	if len(warnings) > 0 {
		s.log.Warn("prometheus returned warnings", "backend", s.name, "warnings", []string(warnings))
	}
	if err != nil && refusedInput(err) {
		// Asked again, it is refused again: the backfill gives up on it.
		return nil, fmt.Errorf("prometheus %s: %w: %w", s.name, availmon.ErrPastRefused, err)
	}
	if err != nil {
		return nil, fmt.Errorf("prometheus %s: %w", s.name, err)
	}
	mat, ok := v.(model.Matrix)
	if !ok {
		return nil, fmt.Errorf("prometheus %s: range query returned a %s", s.name, v.Type())
	}
	return mat, nil
}

// Probe returns the first step of r at which any of the query's apps has
// a sample (false when none has one), and decides whether the minute
// counts must group series by app: only where some app has more than one
// series at one of r's steps. r's step is coarse: the probe is cheap.
func (pq *pastQuery) Probe(ctx context.Context, r availmon.PastRange) (first time.Time, found bool, err error) {
	pq.single = nil
	mat, err := pq.src.queryRange(ctx, pq.q.ProbeString(), v1Range(r))
	if err != nil {
		// A refused probe is not an answer: the queries that follow
		// find the refused expressions and group everything.
		if isExpressionError(err) {
			return r.Start, true, nil
		}
		return time.Time{}, false, err
	}
	type key struct {
		term int
		ts   model.Time
	}
	series := map[key]model.SampleValue{}
	appsAt := map[key]model.SampleValue{}
	for _, ss := range mat {
		k, err := strconv.Atoi(string(ss.Metric[promql.TagLabel]))
		if err != nil || k < 0 || k >= pq.q.Terms() {
			continue
		}
		into := series
		if ss.Metric[promql.CountLabel] == "apps" {
			into = appsAt
		}
		for _, p := range ss.Values {
			into[key{k, p.Timestamp}] = p.Value
		}
	}
	single := make([]bool, pq.q.Terms())
	for i := range single {
		single[i] = true
	}
	for k, n := range appsAt {
		if n == 0 {
			continue
		}
		if t := k.ts.Time(); first.IsZero() || t.Before(first) {
			first = t
		}
		if series[k] != n {
			single[k.term] = false
		}
	}
	pq.single = single
	return first, !first.IsZero(), nil
}

// Counts hands add, per step of r, how many of the query's apps were up
// and down: counted on the server, two series whatever the number of apps.
func (pq *pastQuery) Counts(ctx context.Context, r availmon.PastRange, add func(availmon.PastCount)) error {
	return pq.ask(ctx, pq.q, func(q *promql.Query) error {
		mat, err := pq.src.queryRange(ctx, q.CountsString(pq.singleFor(q)), v1Range(r))
		if err != nil {
			return err
		}
		present := map[int64]int{}
		down := map[int64]int{}
		for _, ss := range mat {
			into := present
			if ss.Metric[promql.CountLabel] == "down" {
				into = down
			}
			for _, p := range ss.Values {
				into[p.Timestamp.Unix()] += int(p.Value)
			}
		}
		for ts, n := range present {
			d := min(down[ts], n)
			if n > 0 {
				add(availmon.PastCount{App: -1, At: time.Unix(ts, 0), Up: (n - d) * pq.weight, Down: d * pq.weight})
			}
		}
		return nil
	})
}

// singleFor is single for q itself; nil (group every term) for a part of
// it (Split), whose terms are numbered afresh.
func (pq *pastQuery) singleFor(q *promql.Query) []bool {
	if q != pq.q {
		return nil
	}
	return pq.single
}

// Hours hands add, per app of the query and per step of r, the minutes up
// and down in the window that ends at the step: r's steps must be half a
// minute after a whole minute (see promql.Query.HoursString). Two
// queries: the minutes with a sample, and those down.
func (pq *pastQuery) Hours(ctx context.Context, r availmon.PastRange, add func(availmon.PastCount)) error {
	return pq.ask(ctx, pq.q, func(q *promql.Query) error {
		present, err := pq.src.queryRange(ctx, q.HoursString(r.Window, time.Minute, false), v1Range(r))
		if err != nil {
			return err
		}
		down, err := pq.src.queryRange(ctx, q.HoursString(r.Window, time.Minute, true), v1Range(r))
		if err != nil {
			return err
		}
		type key struct {
			item int
			ts   int64
		}
		downs := make(map[key]int)
		for _, ss := range down {
			for _, item := range q.ItemsOf(ss.Metric) {
				for _, p := range ss.Values {
					downs[key{item, p.Timestamp.Unix()}] += int(p.Value)
				}
			}
		}
		for _, ss := range present {
			for _, item := range q.ItemsOf(ss.Metric) {
				for _, p := range ss.Values {
					ts, n := p.Timestamp.Unix(), int(p.Value)
					d := min(downs[key{item, ts}], n)
					for _, app := range pq.apps[item] {
						add(availmon.PastCount{App: app, At: time.Unix(ts, 0), Up: n - d, Down: d})
					}
				}
			}
		}
		return nil
	})
}

func v1Range(r availmon.PastRange) v1.Range {
	return v1.Range{Start: r.Start, End: r.End, Step: r.Step}
}

// ask runs one question of q; when the server refuses the expression, it
// asks it of each half (q.Split), down to single expressions, which are
// then left out.
func (pq *pastQuery) ask(ctx context.Context, q *promql.Query, one func(*promql.Query) error) error {
	err := one(q)
	if err == nil || !isExpressionError(err) {
		return err
	}
	parts := q.Split()
	if parts == nil {
		text := q.String()
		if warn, _ := pq.src.pastRefused.Note(text, pq.src.clock.Now()); warn {
			pq.src.log.Warn("the backend refuses an expression over a range; its apps' past stays unknown",
				"backend", pq.src.name, "expression", errtext.Truncate(text, errtext.Max), "err", err)
		}
		return nil
	}
	for _, p := range parts {
		if err := pq.ask(ctx, p, one); err != nil {
			return err
		}
	}
	return nil
}
