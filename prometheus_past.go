package availmon

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/availmon/availmon/internal/promql"
)

// pastSource is a Source that can tell what its apps' states were in the
// past: the backfill asks it for the buckets a monitor did not observe.
// *PrometheusSource is one; HTTP probes cannot look back.
type pastSource interface {
	// pastStates returns, per app, its state at every step of r that had
	// a sample: true for up, false for down.
	pastStates(ctx context.Context, apps []App, r v1.Range) ([]map[int64]bool, error)
	// pastCounts returns, per step of r (unix seconds), how many of apps
	// were up and down.
	pastCounts(ctx context.Context, apps []App, r v1.Range) (map[int64][2]int, error)
}

var _ pastSource = (*PrometheusSource)(nil)

// v1.API answers range queries; a PrometheusSource's api is one.
var _ rangeQuerier = v1.API(nil)

// rangeQuerier is the range call of the v1 API.
type rangeQuerier interface {
	QueryRange(ctx context.Context, query string, r v1.Range, opts ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error)
}

// pastQuery asks for the apps at idx, each as one series, the smallest
// value of its expression, labelled with its index: a zero anywhere is
// down, as in a cycle (a NaN is ignored beside other values, unlike a
// cycle's check). It is built as a syntax tree (internal/promql.MinTree);
// "" when no expression parses.
func (s *PrometheusSource) pastQuery(apps []App, idx []int) string {
	exprs := make([]*promql.Expr, len(apps))
	for _, i := range idx {
		if e, err := s.exprs.get(apps[i].Metric); err == nil {
			exprs[i] = e
		}
	}
	return promql.MinTree(exprs, batchAppLabel)
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

// pastStates asks for every app's state series in one query. An expression
// the server refuses is isolated by halving, as checkBatch does; its app
// gets no past.
func (s *PrometheusSource) pastStates(ctx context.Context, apps []App, r v1.Range) ([]map[int64]bool, error) {
	out := make([]map[int64]bool, len(apps))
	idx := make([]int, len(apps))
	for i := range idx {
		idx[i] = i
	}
	err := s.halving(ctx, apps, idx, func(idx []int) error {
		q := s.pastQuery(apps, idx)
		if q == "" {
			return nil
		}
		mat, err := s.queryRange(ctx, q, r)
		if err != nil {
			return err
		}
		for _, ss := range mat {
			i, ok := labelIndex(ss.Metric, batchAppLabel)
			if !ok || i < 0 || i >= len(apps) {
				continue
			}
			states := make(map[int64]bool, len(ss.Values))
			for _, p := range ss.Values {
				if f := float64(p.Value); !math.IsNaN(f) {
					states[p.Timestamp.Unix()] = f != 0
				}
			}
			out[i] = states
		}
		return nil
	})
	return out, err
}

// pastCounts counts up and down apps per step on the server: one series per
// state comes back, whatever the number of apps.
func (s *PrometheusSource) pastCounts(ctx context.Context, apps []App, r v1.Range) (map[int64][2]int, error) {
	out := make(map[int64][2]int)
	idx := make([]int, len(apps))
	for i := range idx {
		idx[i] = i
	}
	err := s.halving(ctx, apps, idx, func(idx []int) error {
		tree := s.pastQuery(apps, idx)
		if tree == "" {
			return nil
		}
		mat, err := s.queryRange(ctx, `count_values("availmon_up", (`+tree+`) != bool 0)`, r)
		if err != nil {
			return err
		}
		for _, ss := range mat {
			k := 1 // down
			if ss.Metric["availmon_up"] == "1" {
				k = 0
			}
			for _, p := range ss.Values {
				c := out[p.Timestamp.Unix()]
				c[k] += int(p.Value)
				out[p.Timestamp.Unix()] = c
			}
		}
		return nil
	})
	return out, err
}

// halving runs ask for idx; when the server refuses the expression, it runs
// it for each half, down to single apps, which are then left out.
func (s *PrometheusSource) halving(ctx context.Context, apps []App, idx []int, ask func([]int) error) error {
	err := ask(idx)
	if err == nil || !isExpressionError(err) {
		return err
	}
	if len(idx) == 1 {
		s.log.Debug("no past for an app whose expression the backend refuses over a range",
			"backend", s.name, "app", apps[idx[0]].Name, "err", err)
		return nil
	}
	half := len(idx) / 2
	if err := s.halving(ctx, apps, idx[:half], ask); err != nil {
		return err
	}
	return s.halving(ctx, apps, idx[half:], ask)
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
