package availmon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/availmon/availmon/internal/promql"
)

// pastSource is a Source that can tell what its apps' states were in the
// past: the backfill asks it for the buckets a monitor did not observe.
// *PrometheusSource is one; HTTP probes cannot look back.
type pastSource interface {
	// pastPlan plans the backfill's queries for apps.
	pastPlan(apps []App) []*pastQuery
}

var _ pastSource = (*PrometheusSource)(nil)

// v1.API answers range queries; a PrometheusSource's api is one.
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
	src    *PrometheusSource
	q      *promql.Query
	apps   [][]int // per item of q: the apps (indexes into pastPlan's apps) asking it
	weight int
	series int // items of q: the series an answer can have
}

// pastMaxLen leaves room, below the source's longest query, for what the
// backfill wraps around a planned query (min by, subqueries).
func (s *PrometheusSource) pastMaxLen() int { return s.maxQueryLen * 7 / 8 }

// pastPlan plans apps' expressions as the cycles do, after grouping the
// distinct expressions by how many apps ask each: a query then holds
// expressions of one weight only.
func (s *PrometheusSource) pastPlan(apps []App) []*pastQuery {
	byText := make(map[string][]int)
	var texts []string
	for i, a := range apps {
		if a.HTTP != nil {
			continue
		}
		if _, err := s.exprs.get(a.Metric); err != nil {
			continue
		}
		if _, ok := byText[a.Metric]; !ok {
			texts = append(texts, a.Metric)
		}
		byText[a.Metric] = append(byText[a.Metric], i)
	}
	// Stable order: by weight, then by first app.
	slices.SortStableFunc(texts, func(a, b string) int { return cmp.Compare(len(byText[a]), len(byText[b])) })
	var out []*pastQuery
	for start := 0; start < len(texts); {
		w := len(byText[texts[start]])
		end := start
		for end < len(texts) && len(byText[texts[end]]) == w {
			end++
		}
		items := make([]*promql.Expr, end-start)
		owners := make([][]int, end-start)
		for k, t := range texts[start:end] {
			items[k], _ = s.exprs.get(t)
			owners[k] = byText[t]
		}
		for _, q := range promql.Plan(items, s.pastMaxLen(), PrometheusBatchSize) {
			out = append(out, &pastQuery{src: s, q: q, apps: owners, weight: w, series: len(q.Items())})
		}
		start = end
	}
	return out
}

func (s *PrometheusSource) queryRange(ctx context.Context, q string, r v1.Range) (model.Matrix, error) {
	rq, ok := s.api.(rangeQuerier)
	if !ok {
		return nil, errors.New("backend cannot answer range queries")
	}
	v, warnings, _, err := rq.QueryRange(ctx, q, r)
	if len(warnings) > 0 {
		s.log.Warn("prometheus returned warnings", "backend", s.name, "warnings", []string(warnings))
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

// earliest returns the first step of r at which any of the query's series
// has a sample; false when none has one.
func (pq *pastQuery) earliest(ctx context.Context, r v1.Range, sent *atomic.Int64) (time.Time, bool, error) {
	var first time.Time
	err := pq.ask(ctx, pq.q, func(q *promql.Query) error {
		mat, err := pq.queryRange(ctx, sent, q.PresentString(), r)
		if err != nil {
			return err
		}
		for _, ss := range mat {
			if len(ss.Values) > 0 {
				if t := ss.Values[0].Timestamp.Time(); first.IsZero() || t.Before(first) {
					first = t
				}
			}
		}
		return nil
	})
	return first, !first.IsZero(), err
}

// counts hands add, per step of r (unix seconds), how many of the query's
// apps were up and down: counted on the server, one series per state
// whatever the number of apps.
func (pq *pastQuery) counts(ctx context.Context, r v1.Range, sent *atomic.Int64, add func(ts int64, up, down int)) error {
	return pq.ask(ctx, pq.q, func(q *promql.Query) error {
		mat, err := pq.queryRange(ctx, sent, q.CountString("availmon_up"), r)
		if err != nil {
			return err
		}
		for _, ss := range mat {
			up := ss.Metric["availmon_up"] == "1"
			for _, p := range ss.Values {
				n := int(p.Value) * pq.weight
				if up {
					add(p.Timestamp.Unix(), n, 0)
				} else {
					add(p.Timestamp.Unix(), 0, n)
				}
			}
		}
		return nil
	})
}

// hours hands add, per app of the query and per step of r, the minutes up
// and down in the window minutes long that ends at the step: r's steps
// must be half a minute after a whole minute (see promql.Query.UpString).
// Two queries: the minutes up, and the minutes with a sample.
func (pq *pastQuery) hours(ctx context.Context, r v1.Range, window time.Duration, sent *atomic.Int64, add func(app int, ts int64, up, down int)) error {
	return pq.ask(ctx, pq.q, func(q *promql.Query) error {
		up, err := pq.queryRange(ctx, sent, q.UpString(window, backfillStep), r)
		if err != nil {
			return err
		}
		n, err := pq.queryRange(ctx, sent, q.SamplesString(window, backfillStep), r)
		if err != nil {
			return err
		}
		ups := make(map[string]map[int64]int, len(up))
		for _, ss := range up {
			m := make(map[int64]int, len(ss.Values))
			for _, p := range ss.Values {
				m[p.Timestamp.Unix()] = int(p.Value)
			}
			ups[ss.Metric.String()] = m
		}
		for _, ss := range n {
			u := ups[ss.Metric.String()]
			for _, item := range q.ItemsOf(ss.Metric) {
				for _, p := range ss.Values {
					ts, total := p.Timestamp.Unix(), int(p.Value)
					upN := min(u[ts], total)
					for _, app := range pq.apps[item] {
						add(app, ts, upN, total-upN)
					}
				}
			}
		}
		return nil
	})
}

// queryRange sends one range query and counts it in sent.
func (pq *pastQuery) queryRange(ctx context.Context, sent *atomic.Int64, q string, r v1.Range) (model.Matrix, error) {
	sent.Add(1)
	return pq.src.queryRange(ctx, q, r)
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
		pq.src.log.Debug("no past for an expression the backend refuses over a range",
			"backend", pq.src.name, "err", err)
		return nil
	}
	for _, p := range parts {
		if err := pq.ask(ctx, p, one); err != nil {
			return err
		}
	}
	return nil
}

// Prometheus refuses a range query of more than 11,000 points per series.
const maxStepsPerQuery = 10_000

// chunks splits [start, end) into ranges of at most steps steps (capped at
// maxStepsPerQuery). Each range's End is its last step (a range query
// includes both ends).
func chunks(start, end time.Time, step time.Duration, steps int) []v1.Range {
	steps = min(steps, maxStepsPerQuery)
	span := time.Duration(steps) * step
	var out []v1.Range
	for from := start; from.Before(end); from = from.Add(span) {
		to := timeMin(end, from.Add(span)).Add(-step)
		if to.Before(from) {
			break
		}
		out = append(out, v1.Range{Start: from, End: to, Step: step})
	}
	return out
}

func timeMin(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
