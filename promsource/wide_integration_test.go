package promsource_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/promtest"
	"github.com/availmon/availmon/promsource"
)

// countingRT counts the requests that pass.
type countingRT struct{ n atomic.Int64 }

func (c *countingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// A fused group too long for one query is asked wide, as one selector of
// every value: against a real Prometheus and VictoriaMetrics that hold
// series of apps not asked for too, every app gets the state that one
// regular expression of the group's values gives it. When most of the
// answer is other apps' series the next cycles ask the group's parts, and
// when the answer is over MaxResponseBytes the parts are asked at once. A
// group of more values than a shard's is asked in shards, together.
func TestWideQueryStatesEqual(t *testing.T) {
	t.Parallel()
	exp := promtest.NewExporter(t)
	const series = 400 // app-0 ... app-399; every 7th down
	for i := range series {
		exp.Set(fmt.Sprintf("app-%d", i), float64(min(1, i%7)))
	}
	servers := map[string]func(testing.TB, ...promtest.Option) *promtest.Server{
		"prometheus": promtest.Start, "victoria-metrics": promtest.StartVictoriaMetrics}
	for name, start := range servers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := start(t, promtest.Job("demo", exp.Target()))
			srv.WaitForQuery(t, `count(demo_up) == 400`, promtest.SampleEquals(series))
			tests := []struct {
				name     string
				asked    int   // apps asked for, of the series
				maxBytes int64 // 0: the default
				shard    int   // values a shard holds; 0: the default
				requests []int // of each of three cycles
			}{
				{"wide", 300, 0, 0, []int{1, 1, 1}},
				{"mostly other apps", 150, 0, 0, []int{1, 2, 2}},
				{"answer too large", 300, 24 << 10, 0, []int{1 + 4, 4, 4}},
				{"in shards", 300, 0, 100, []int{4, 4, 4}}, // 301 values, app-none too
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					apps := make([]availmon.App, tt.asked+1)
					for i := range tt.asked {
						apps[i] = availmon.App{Name: fmt.Sprint(i), Metric: fmt.Sprintf(`demo_up{app="app-%d"}`, i)}
					}
					apps[tt.asked] = availmon.App{Name: "none", Metric: `demo_up{app="app-none"}`}
					sources := make(map[string]*promsource.Source)
					want := states(t, sources, srv.URL(), 1<<20, 0, 0, apps, nil)
					rt := &countingRT{}
					for cycle, n := range tt.requests {
						rt.n.Store(0)
						if diff := cmp.Diff(want, states(t, sources, srv.URL(), 800, tt.maxBytes, tt.shard, apps, rt)); diff != "" {
							t.Errorf("cycle %d: states asked wide (-one regular expression +wide):\n%s", cycle, diff)
						}
						if got := rt.n.Load(); got != int64(n) {
							t.Errorf("cycle %d: %d requests, want %d", cycle, got, n)
						}
					}
				})
			}
		})
	}
}

// states checks apps with the source of that configuration in sources
// (one made at its first call) and returns their states.
func states(t *testing.T, sources map[string]*promsource.Source, url string, maxLen int, maxBytes int64, shard int, apps []availmon.App, rt *countingRT) []string {
	t.Helper()
	key := fmt.Sprint(t.Name(), maxLen, maxBytes, shard)
	src := sources[key]
	if src == nil {
		o := promsource.Options{Name: "main", URL: url, MaxQueryLength: maxLen, MaxResponseBytes: maxBytes, ShardSeries: shard}
		if rt != nil {
			o.RoundTripper = rt
		}
		var err error
		if src, err = promsource.New(o); err != nil {
			t.Fatal(err)
		}
		sources[key] = src
	}
	res, err := src.Check(context.Background(), apps)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = string(r.Status)
	}
	return out
}
