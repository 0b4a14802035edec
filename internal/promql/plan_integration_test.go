package promql_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/common/model"

	"github.com/availmon/availmon/internal/promql"
	"github.com/availmon/availmon/internal/promtest"
)

// corpus are expressions of one app, the app's name in place of %[1]q: a
// selector's value, inside functions and aggregations that keep the label
// or drop it, binary operators, offsets, subqueries, @, comments. Some fuse,
// some do not; every one must give each app what it gives alone.
func corpus(at time.Time) []string {
	return []string{
		`demo_up{app=%[1]q}`,
		`demo_up{app=%[1]q} # the app's health`,
		"demo_up{\n  app=%[1]q,\n  shard=\"1\"\n}",
		`demo_up{app=%[1]q, shard=~"1|2"}`,
		`demo_up{app=%[1]q, shard!="2"}`,
		`{__name__="demo_up", app=%[1]q}`,
		`demo_up{app=%[1]q} offset 2s`,
		`demo_up{app=%[1]q} offset -1s`,
		`demo_up{app=%[1]q} @ end()`,
		fmt.Sprintf(`demo_up{app=%%[1]q} @ %d`, at.Add(-2*time.Second).Unix()),
		`rate(http_requests_total{app=%[1]q}[5s])`,
		`rate(http_requests_total{app=%[1]q}[5s] offset 2s)`,
		`sum by (app) (rate(http_requests_total{app=%[1]q, code=~"5.."}[5s]))`,
		`sum by (app, code) (increase(http_requests_total{app=%[1]q}[5s]))`,
		`sum without (code) (http_requests_total{app=%[1]q})`,
		`sum(http_requests_total{app=%[1]q})`,
		`count(demo_up{app=%[1]q})`,
		`max by (app) (demo_up{app=%[1]q})`,
		`topk by (app) (1, http_requests_total{app=%[1]q})`,
		`topk(1, http_requests_total{app=%[1]q})`,
		`quantile by (app) (0.5, http_requests_total{app=%[1]q})`,
		`count_values by (app) ("value", demo_up{app=%[1]q})`,
		`histogram_quantile(0.9, sum by (le, app) (rate(req_seconds_bucket{app=%[1]q}[5s])))`,
		`demo_up{app=%[1]q} > 0`,
		`demo_up{app=%[1]q} > bool 0`,
		`demo_up{app=%[1]q} == 1`,
		`1 - demo_up{app=%[1]q}`,
		`-demo_up{app=%[1]q}`,
		`demo_up{app=%[1]q} * 100 / 2`,
		`demo_up{app=%[1]q} or vector(0)`,
		`sum(demo_up{app=%[1]q}) or vector(0)`,
		`absent(demo_up{app=%[1]q})`,
		`absent_over_time(demo_up{app=%[1]q}[5s])`,
		`vector(1)`,
		`scalar(sum(demo_up{app=%[1]q}))`,
		`sum(demo_up{app=%[1]q}) > bool 0`,
		`demo_up{app=%[1]q} and on (app) http_requests_total{app=%[1]q}`,
		`rate(http_requests_total{app=%[1]q}[5s]) / on (app) group_left sum by (app) (demo_up{app=%[1]q})`,
		`demo_up{app=%[1]q} unless on (app) demo_info{app=%[1]q, kind="old"}`,
		`demo_up{app=%[1]q} * on () group_left demo_info{app="a"}`,
		`demo_up{app=%[1]q} / on (shard) demo_up{app=%[1]q}`,
		`max_over_time(demo_up{app=%[1]q}[5s])`,
		`avg_over_time(rate(http_requests_total{app=%[1]q}[3s])[6s:1s])`,
		`label_replace(demo_up{app=%[1]q}, "copy", "$1", "app", "(.*)")`,
		`label_replace(demo_up{app=%[1]q}, "app", "same", "", "")`,
		`label_join(demo_up{app=%[1]q}, "joined", "-", "app", "shard")`,
		`timestamp(demo_up{app=%[1]q}) > 0`,
		`time() - timestamp(demo_up{app=%[1]q}) < bool 60`,
		`clamp_max(http_requests_total{app=%[1]q}, 10)`,
		`sort_desc(demo_up{app=%[1]q})`,
		`sum by (app) (demo_up{app=%[1]q}) / count by (app) (demo_up{app=%[1]q})`,
		`demo_info{app=%[1]q, kind!=""}`,
		`sum by (app) (rate(http_requests_total{app=%[1]q}[5s])) > bool 0`,
		`deriv(demo_up{app=%[1]q}[5s])`,
		`1`,
		`demo_up{app=%[1]q} + on (app) group_left (kind) demo_info{app=%[1]q}`,
	}
}

// apps are the values put in the corpus: plain names, names that are
// regular expressions of others ("c.d" and "cxd", "x|y" and "x", "y"), and
// one without series.
var apps = []string{"a", "b", "c.d", "cxd", "x|y", "x", "y", "none"}

// exporter serves series for apps; counters grow by one each scrape, so
// rates are not all zero.
func exporter(t *testing.T) string {
	var scrapes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n := scrapes.Add(1)
		var b strings.Builder
		for i, app := range apps {
			if app == "none" {
				continue
			}
			up := 1
			if i%3 == 1 {
				up = 0
			}
			fmt.Fprintf(&b, "demo_up{app=%q,shard=\"1\"} %d\n", app, up)
			fmt.Fprintf(&b, "demo_up{app=%q,shard=\"2\"} 1\n", app)
			fmt.Fprintf(&b, "demo_info{app=%q,kind=%q} 1\n", app, []string{"old", "new"}[i%2])
			for _, code := range []string{"200", "500"} {
				fmt.Fprintf(&b, "http_requests_total{app=%q,code=%q} %d\n", app, code, n*int64(i+1))
			}
			for k, le := range []string{"0.1", "1", "+Inf"} {
				fmt.Fprintf(&b, "req_seconds_bucket{app=%q,le=%q} %d\n", app, le, n*int64(k+i+1))
			}
		}
		// Series no item asks for: of another app and without the
		// label, which a wide query's answer holds and must not give
		// to any item.
		fmt.Fprintf(&b, "demo_up{app=\"other\",shard=\"1\"} 0\ndemo_up{shard=\"1\"} 0\n")
		fmt.Fprintf(&b, "http_requests_total{app=\"other\",code=\"500\"} %d\nhttp_requests_total{code=\"500\"} %d\n", 7*n, 9*n)
		fmt.Fprintf(&b, "demo_info{app=\"other\",kind=\"old\"} 1\nreq_seconds_bucket{app=\"other\",le=\"+Inf\"} %d\n", n)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprint(w, b.String())
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// answer is what a query gave one item: its series (without the tag) and
// values, or that it failed.
type answer struct {
	Series []string
	Failed bool
}

func (a *answer) add(s *model.Sample) {
	m := s.Metric.Clone()
	delete(m, promql.TagLabel)
	v := float64(s.Value)
	if math.IsNaN(v) {
		v = -12345 // NaN != NaN
	}
	a.Series = append(a.Series, fmt.Sprintf("%s %g", m, v))
}

func (a *answer) sort() { slices.Sort(a.Series) }

// The property: for every item, the planned (fused or combined) queries
// give exactly what asking the item alone gives, at the same instant,
// against a real Prometheus.
func TestPlanEqualsAlone(t *testing.T) {
	t.Parallel()
	srv := promtest.Start(t, promtest.Job("demo", exporter(t)))
	srv.WaitForQuery(t, `count_over_time(http_requests_total{app="a",code="200"}[10s])`, func(v model.Value) bool {
		vec, ok := v.(model.Vector)
		return ok && len(vec) == 1 && vec[0].Value >= 7 // enough history for [5s], offsets and subqueries
	})
	at := time.Now().Add(-time.Second).Truncate(time.Second)
	var texts []string
	for _, tmpl := range corpus(at) {
		for _, app := range apps {
			texts = append(texts, strings.ReplaceAll(fmt.Sprintf(tmpl, app), "%!(EXTRA string="+app+")", ""))
		}
	}
	items := make([]*promql.Expr, len(texts))
	for i, s := range texts {
		e, err := promql.Parse(s)
		if err != nil {
			t.Fatalf("corpus item %q: %v", s, err)
		}
		items[i] = e
	}
	ctx := context.Background()
	query := func(q string) (model.Value, error) {
		v, _, _, err := srv.API().Query(ctx, q, at)
		return v, err
	}

	// Short queries and few terms, so that fused groups are split too;
	// PlanWide's, shorter still, then asks every group wide, and in shards
	// of two values each.
	wide := func(shardValues int) func([]*promql.Expr, int, int) []*promql.Query {
		return func(items []*promql.Expr, maxLen, maxTerms int) []*promql.Query {
			return promql.PlanWide(items, maxLen, maxTerms, shardValues)
		}
	}
	for _, p := range []struct {
		name   string
		plan   func([]*promql.Expr, int, int) []*promql.Query
		maxLen int
	}{{"Plan", promql.Plan, 1500}, {"PlanWide", wide(promql.ShardValues), 100}, {"PlanWide in shards", wide(2), 100}} {
		t.Run(p.name, func(t *testing.T) {
			queries := p.plan(items, p.maxLen, 16)
			planned, wide, wideFailed := askPlanned(t, query, queries, len(items))
			if len(queries) > len(items)/3 && p.name == "Plan" {
				t.Errorf("%d queries for %d items: the fusable ones were not fused", len(queries), len(items))
			}
			if p.name != "Plan" && (wide == 0 || wideFailed > 0) {
				t.Errorf("%d wide queries, %d of them failed: want some, answered", wide, wideFailed)
			}
			for i, text := range texts {
				var alone answer
				v, err := query(text)
				if err == nil {
					q := promql.Plan([]*promql.Expr{items[i]}, 1<<20, 1)[0]
					err = q.Answer(v, func(_ int, s *model.Sample) { alone.add(s) })
				}
				if err != nil {
					alone = answer{Failed: true}
				}
				alone.sort()
				planned[i].sort()
				if diff := cmp.Diff(alone, planned[i]); diff != "" {
					t.Errorf("%s: planned answer differs from asking alone (-alone +planned):\n%s", text, diff)
				}
			}
		})
	}
}

// askPlanned asks the queries, halving those refused down to the item at
// fault, and returns what each item got, how many of the queries were
// wide and how many of those failed.
func askPlanned(t *testing.T, query func(string) (model.Value, error), queries []*promql.Query, items int) (planned []answer, wide, wideFailed int) {
	planned = make([]answer, items)
	var requests int
	for _, q := range queries {
		if q.Wide() {
			wide++
		}
	}
	var run func(q *promql.Query)
	run = func(q *promql.Query) {
		requests++
		v, err := query(q.String())
		if err == nil {
			err = q.Answer(v, func(i int, s *model.Sample) { planned[i].add(s) })
		}
		if err == nil {
			return
		}
		if q.Wide() {
			wideFailed++
		}
		parts := q.Split()
		if parts == nil {
			for _, i := range q.Items() {
				planned[i] = answer{Failed: true}
			}
			return
		}
		for _, p := range parts {
			run(p)
		}
	}
	for _, q := range queries {
		run(q)
	}
	t.Logf("%d items: %d planned queries (%d wide), %d requests with the halving", items, len(queries), wide, requests)
	return planned, wide, wideFailed
}
