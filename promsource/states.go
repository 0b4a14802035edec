package promsource

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/promql"
)

// States hands add, per app and window of r, at how many of the window's
// instants the app had a value and at how many it was down: one range
// query whose steps are the windows, each read with count_over_time of a
// subquery at r.Resolution (promql.Query.StatesString, ungrouped where
// the answer allows: statesMatrix). It is evaluated
// half a resolution before each window's end, so that Prometheus 2.x and
// 3.x and VictoriaMetrics read the same instants: the window's multiples
// of the resolution. With r.Apps, only those apps' expressions are asked,
// planned afresh: the backfill asks the few apps that changed in a day
// about its minutes, not the whole query, and those of every query of
// pq's PlanPast call in one request (JoinsPast).
func (pq *pastQuery) States(ctx context.Context, r availmon.PastRange, add func(availmon.PastState)) error {
	res := r.Resolution
	if res <= 0 {
		res = time.Minute
	}
	if r.Window < res || r.Step <= 0 {
		return nil
	}
	shift := r.Window - res/2
	rng := v1.Range{Start: r.Start.Add(shift), End: r.End.Add(shift), Step: r.Step}
	want := pq.wanted(r.Apps)
	queries, owners := []*promql.Query{pq.q}, pq.apps
	if r.Apps != nil {
		queries, owners = pq.part(want), pq.plan.apps
	}
	instants := int(r.Window / res)
	for _, q := range queries {
		err := pq.ask(ctx, q, func(q *promql.Query) error {
			return pq.states(ctx, q, owners, rng, r, res, instants, want, add)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// states asks q and hands its answer to add, for the apps want holds
// (every app when want is nil); owners are the apps asking each of q's
// items.
func (pq *pastQuery) states(ctx context.Context, q *promql.Query, owners [][]int, rng v1.Range, r availmon.PastRange,
	res time.Duration, instants int, want map[int]bool, add func(availmon.PastState)) error {
	mat, err := pq.statesMatrix(ctx, q, rng, r.Window, res)
	if err != nil {
		return err
	}
	type key struct {
		item int
		ts   int64
	}
	type count struct{ present, down int }
	counts := make(map[key]*count)
	var order []key
	for _, ss := range mat {
		down := ss.Metric[promql.CountLabel] == "down"
		for _, item := range q.ItemsOf(ss.Metric) {
			for _, p := range ss.Values {
				k := key{item, p.Timestamp.Unix()}
				c := counts[k]
				if c == nil {
					c = &count{}
					counts[k] = c
					order = append(order, k)
				}
				if down {
					c.down += int(p.Value)
				} else {
					c.present += int(p.Value)
				}
			}
		}
	}
	shift := r.Window - res/2
	for _, k := range order {
		c := counts[k]
		present := min(c.present, instants)
		down := min(c.down, present)
		for _, app := range owners[k.item] {
			if want == nil || want[app] {
				add(availmon.PastState{App: app, At: time.Unix(k.ts, 0).Add(-shift), Window: r.Window,
					Instants: instants, Present: present, Down: down})
			}
		}
	}
	return nil
}

// PastApps returns the apps whose states q tells: those of its items. A
// question of them all is one request (two when the answer must be asked
// again grouped), so the backfill bounds it by their number.
func (pq *pastQuery) PastApps() []int {
	var out []int
	for _, item := range pq.q.Items() {
		out = append(out, pq.apps[item]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// statesMatrix asks q's states counting each series as it is, and again
// grouped by app where that answer cannot be read per app: some app has
// several series (their counts do not add up: two series present at the
// same instant are one instant), or the backend refuses the expression
// ungrouped (series that differ only by their name collide once a
// function drops it) or the answer runs past Options.MaxResponseBytes
// (apps of many series each, which grouping makes one).
func (pq *pastQuery) statesMatrix(ctx context.Context, q *promql.Query, rng v1.Range, window, res time.Duration) (model.Matrix, error) {
	mat, err := pq.src.queryRange(ctx, q.StatesString(window, res, false), rng)
	if err != nil && (!isExpressionError(err) || refusedAsLarge(err)) && !errors.Is(err, ErrResponseTooLarge) {
		return nil, err
	}
	if err == nil {
		ms := make([]model.Metric, len(mat))
		for i, ss := range mat {
			ms[i] = ss.Metric
		}
		if !q.Grouped(ms) {
			return mat, nil
		}
	}
	return pq.src.queryRange(ctx, q.StatesString(window, res, true), rng)
}

// wanted is apps as a set; nil for nil (every app).
func (pq *pastQuery) wanted(apps []int) map[int]bool {
	if apps == nil {
		return nil
	}
	out := make(map[int]bool, len(apps))
	for _, a := range apps {
		out[a] = true
	}
	return out
}

// part plans the queries that ask only the expressions of the apps want
// holds, which may be apps of any query of pq's PlanPast call (JoinsPast),
// as PlanPast plans a query; their items index pq.plan.
func (pq *pastQuery) part(want map[int]bool) []*promql.Query {
	items := make([]*promql.Expr, len(pq.plan.items))
	any := false
	for item, apps := range pq.plan.apps {
		for _, app := range apps {
			if want[app] {
				items[item], any = pq.plan.items[item], true
				break
			}
		}
	}
	if !any {
		return nil
	}
	return promql.Plan(items, pq.src.pastMaxLen(), BatchSize)
}

// JoinsPast reports whether other was planned by the same PlanPast call
// as pq: a question of pq may then name its apps, planned with pq's own
// into as few requests as the planner allows (one for the few apps that
// changed in a day, whatever their queries).
func (pq *pastQuery) JoinsPast(other availmon.PastStater) bool {
	o, ok := other.(*pastQuery)
	return ok && o.plan == pq.plan
}

// refusedAsLarge says whether the backend refused a question for the
// samples it would read (Prometheus's query.max-samples, VictoriaMetrics'
// search.maxSamplesPerQuery): grouped, it reads as many, so the planner
// asks it in parts instead.
func refusedAsLarge(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "too many samples") || strings.Contains(msg, "maxSamplesPerQuery")
}
