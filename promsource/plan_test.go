package promsource

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/promql"
)

// New refuses the apps of a Prometheus backend whose expressions the
// parser refuses, every one of them at once, with the parser's position.
func TestNewRefusesBadPromQL(t *testing.T) {
	src, err := New(Options{Name: "main", URL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	probe := struct{ URL string }{"http://127.0.0.1:1/"}
	_, err = availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "here"}},
		Apps: []availmon.App{
			{Name: "good", Location: "here", Backend: "main", Metric: `sum by (app) (rate(x{app="a"}[5m])) # comment`},
			{Name: "unclosed", Location: "here", Backend: "main", Metric: `up{job="a"`},
			{Name: "range", Location: "here", Backend: "main", Metric: `up[5m]`},
			{Name: "bad-rt", Location: "here", Backend: "main", Metric: `up`, ResponseTimeMetric: "sum(\n  up) + \"x\""},
			{Name: "empty", Location: "here", Backend: "main", Metric: ``},
			{Name: "probe", Location: "here", Backend: "probes", Settings: probe},
		},
		Backends: []availmon.Backend{
			{Name: "main", Source: src, BatchSize: BatchSize},
			{Name: "probes", Source: availmon.SourceFunc(func(ctx context.Context, a availmon.App) availmon.Result { return availmon.Result{} })},
		},
	})
	if err == nil {
		t.Fatal("New accepted bad expressions")
	}
	for _, want := range []string{
		`app "unclosed": metric: 1:11: parse error: unexpected end of input inside braces`,
		`app "range": metric: 1:1: the expression returns a range vector`,
		`app "bad-rt": response time metric: 2:9: parse error: binary expression must contain only scalar and instant vector types`,
		`app "empty": metric: the expression is empty`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("New's error does not contain %q:\n%v", want, err)
		}
	}
	for _, notWant := range []string{`"good"`, `"probe"`} {
		if strings.Contains(err.Error(), notWant) {
			t.Errorf("New's error blames app %s:\n%v", notWant, err)
		}
	}
}

// The expression and plan caches keep what cycles ask for, the same
// objects, and drop what went unasked for a whole age: a reconfiguration's
// leftovers do not stay for the life of the process.
func TestCachesDropWhatIsNotAsked(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	c := exprCache{age: ages{now: clock}}
	c.sweep() // a Check begins the first age
	get := func(text string) *promql.Expr {
		t.Helper()
		e, err := c.get(text, nil)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		return e
	}
	a, b := get(`up{app="a"}`), get(`up{app="b"}`)
	if _, err := c.get(`up{`, nil); err == nil {
		t.Fatal("a bad expression was accepted")
	}
	now = now.Add(cacheAge + time.Second) // a second age: nothing is dropped yet
	c.sweep()
	if get(`up{app="a"}`) != a || get(`up{app="b"}`) != b || len(c.m) != 2 || len(c.bad) != 1 {
		t.Fatalf("the second age changed the cache: %d expressions, %d refused", len(c.m), len(c.bad))
	}
	now = now.Add(cacheAge + time.Second) // a third: what the second did not ask for goes
	c.sweep()
	if get(`up{app="a"}`) != a {
		t.Error("an expression asked for every age was parsed again")
	}
	if _, ok := c.m[`up{app="b"}`]; !ok {
		t.Error("an expression asked for in the age before was dropped")
	}
	if len(c.bad) != 0 {
		t.Errorf("a refused expression not asked for since the first age is kept: %v", c.bad)
	}
	now = now.Add(cacheAge + time.Second)
	c.sweep()
	get(`up{app="a"}`)
	if _, ok := c.m[`up{app="b"}`]; ok || len(c.m) != 1 {
		t.Errorf("an expression unasked for a whole age is kept (%d kept)", len(c.m))
	}
	if get(`up{app="b"}`) == b {
		t.Error("a dropped expression came back as the same object")
	}

	pc := planCache{age: ages{now: clock}}
	appsA := []availmon.App{{Name: "a", Metric: `up{app="a"}`}}
	appsB := []availmon.App{{Name: "b", Metric: `up{app="b"}`}}
	kA, kB := pc.key(appsA, []int{0}), pc.key(appsB, []int{0})
	q1 := pc.plan(kA, []*promql.Expr{a, nil}, 1<<15, promql.ShardValues)
	pc.plan(kB, []*promql.Expr{b, nil}, 1<<15, promql.ShardValues)
	for range 3 {
		now = now.Add(cacheAge + time.Second)
		if _, q := pc.cached(kA, appsA, []int{0}, c.refused); len(q) == 0 || &q[0] != &q1[0] {
			t.Fatal("a plan asked for every age was made again")
		}
	}
	if len(pc.plans) != 1 {
		t.Errorf("%d plans kept, want the one asked for", len(pc.plans))
	}
}

// A cycle finds its batch's plan by the apps' expression texts: the same
// expressions in the same places find it, any change does not.
func TestPlanFoundByExpressionTexts(t *testing.T) {
	apps := []availmon.App{
		{Name: "a", Metric: `up{app="a"}`},
		{Name: "bad", Metric: `up{`, ResponseTimeMetric: `rt{app="bad"}`},
		{Name: "c", Metric: `up{app="c"}`, ResponseTimeMetric: `rt{`},
		{Name: "d", Metric: `up{app="d"}`, ResponseTimeMetric: `rt{app="d"}`},
	}
	all := []int{0, 1, 2, 3}
	var pc planCache
	run := &checkRun{s: &Source{}, apps: apps}
	items := run.items(all)
	key := pc.key(apps, all)
	qs := pc.plan(key, items, 1<<15, promql.ShardValues)
	refused := run.s.exprs.refused
	if got, q := pc.cached(key, apps, all, refused); len(q) != len(qs) || &q[0] != &qs[0] || &got[0] != &items[0] {
		t.Fatal("the same apps did not find their plan")
	}
	changed := func(name string, f func(a []availmon.App), idx []int) {
		t.Helper()
		a := slices.Clone(apps)
		f(a)
		if _, q := pc.cached(key, a, idx, refused); q != nil {
			t.Errorf("%s: found the plan of other expressions", name)
		}
	}
	changed("metric", func(a []availmon.App) { a[0].Metric = `up{app="x"}` }, all)
	changed("refused metric", func(a []availmon.App) { a[1].Metric = `up{app="bad"}` }, all)
	changed("response time", func(a []availmon.App) { a[3].ResponseTimeMetric = `rt{app="x"}` }, all)
	changed("refused response time", func(a []availmon.App) { a[2].ResponseTimeMetric = `rt{app="c"}` }, all)
	changed("fewer apps", func([]availmon.App) {}, []int{0, 1, 2})
	changed("more apps", func([]availmon.App) {}, nil)
	if _, q := pc.cached(key, apps[:3], all[:3], refused); q != nil {
		t.Error("a shorter batch found the plan")
	}
}

// The expressions a kept plan holds leave the cache, and are not parsed
// again: the backfill and a reconfiguration's validation take the plan's.
func TestPlannedExpressionsAreTheCaches(t *testing.T) {
	apps := jobApps(50)
	apps[3].ResponseTimeMetric = `rt{job="app-00003"}`
	url, _ := answerServer(t, apps, 0, func(int) int { return 1 })
	src, err := New(Options{Name: "main", URL: url})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range apps {
		if err := src.ValidateApp(a); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := src.expr(`up{`); err == nil {
		t.Fatal("a bad expression was accepted")
	}
	if _, err := src.Check(context.Background(), apps); err != nil {
		t.Fatal(err)
	}
	if _, err := src.expr(`up{`); err == nil { // refused, as a cycle asks again
		t.Fatal("a bad expression was accepted")
	}
	if n := len(src.exprs.m); n != 0 {
		t.Errorf("the cache keeps %d expressions its plan holds, want none", n)
	}
	held := src.plans.held()
	if len(held) != len(apps)+1 {
		t.Fatalf("the plan holds %d expressions, want %d", len(held), len(apps)+1)
	}
	for _, q := range src.PlanPast(apps) {
		for _, e := range q.(*pastQuery).items {
			if held[e.String()] != e {
				t.Fatalf("the backfill parsed %s again", e)
			}
		}
	}
	if n := len(src.exprs.m); n != 0 {
		t.Errorf("the backfill left %d expressions in the cache, want none", n)
	}
	for _, a := range apps { // a reconfiguration validates every app
		if err := src.ValidateApp(a); err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{a.Metric, a.ResponseTimeMetric} {
			if e, err := src.expr(text); text != "" && (err != nil || e != held[text]) {
				t.Fatalf("%s was parsed again (%v)", text, err)
			}
		}
	}
}

// A cycle that plans a batch anew takes none of the other batches'
// planned expressions back into the cache: they stay with their plans. A
// batch's miss that refilled the cache from every kept plan would keep
// the other batches' expressions twice, and with more batches than the
// plan cache keeps (each planned anew every cycle) walk every kept plan
// once a batch, every cycle.
func TestNewBatchPlanRefillsNothing(t *testing.T) {
	apps := jobApps(100)
	url, _ := answerServer(t, apps, 0, func(int) int { return 1 })
	src, err := New(Options{Name: "main", URL: url})
	if err != nil {
		t.Fatal(err)
	}
	for _, batch := range [][]availmon.App{apps[:50], apps[50:]} {
		res, err := src.Check(context.Background(), batch)
		if err != nil {
			t.Fatal(err)
		}
		if res[len(res)-1].Status != availmon.StatusUp {
			t.Fatalf("the batch's last app is %s, want up", res[len(res)-1].Status)
		}
	}
	if n := len(src.exprs.m); n != 0 {
		t.Errorf("the cache keeps %d expressions the plans hold, want none", n)
	}
}

// A reconfiguration's validation takes the plans' expressions, not
// parses anew, after an earlier one's refill went stale and was swept:
// parsed anew, the cache would keep a second copy of every planned
// expression beside the plan's for another age or two.
func TestValidationRefillsAfterSweep(t *testing.T) {
	apps := jobApps(50)
	url, _ := answerServer(t, apps, 0, func(int) int { return 1 })
	src, now := agedSource(t, url)
	validate := func() {
		t.Helper()
		for _, a := range apps {
			if err := src.ValidateApp(a); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func() {
		t.Helper()
		if _, err := src.Check(context.Background(), apps); err != nil {
			t.Fatal(err)
		}
	}
	validate()
	check()    // planned: the cache lets go of the plan's expressions
	validate() // a reconfiguration that changes nothing: refilled
	check()    // the plan is found: nothing forgotten
	for range 3 {
		*now = now.Add(cacheAge + time.Second)
		check() // the refilled entries, unasked, are swept
	}
	if n := len(src.exprs.m); n != 0 {
		t.Fatalf("the cache keeps %d expressions after ages unasked, want none", n)
	}
	held := src.plans.held()
	validate()
	for _, a := range apps {
		if e, err := src.expr(a.Metric); err != nil || e != held[a.Metric] {
			t.Fatalf("%s was parsed again (%v)", a.Metric, err)
		}
	}
}

// The shards of a wide group are one batch, which Check asks at once: as
// batches of their own the monitor's calls would each plan the shard's
// values alone, as one wide query of every value.
func TestShardsShareABatch(t *testing.T) {
	src, err := New(Options{Name: "main", URL: "http://127.0.0.1:1", MaxQueryLength: 800, ShardSeries: 100})
	if err != nil {
		t.Fatal(err)
	}
	apps := make([]availmon.App, 301)
	for i := range 300 {
		apps[i] = availmon.App{Name: fmt.Sprint(i), Metric: fmt.Sprintf(`demo_up{app="app-%d"}`, i)}
	}
	apps[300] = availmon.App{Name: "other", Metric: `other_up{job="x"}`}
	batches := src.PlanBatches(apps, BatchSize)
	want := [][]int{make([]int, 300), {300}}
	for i := range want[0] {
		want[0][i] = i
	}
	if diff := cmp.Diff(want, batches); diff != "" {
		t.Errorf("batches (-want +got):\n%s", diff)
	}
	items := make([]*promql.Expr, 2*300)
	for i := range 300 {
		if items[2*i], err = promql.Parse(apps[i].Metric); err != nil {
			t.Fatal(err)
		}
	}
	if qs := promql.PlanWide(items, 800, BatchSize, src.shardValues); len(qs) != 3 {
		t.Errorf("the batch's %d queries, want its 3 shards", len(qs))
	}
	never, err := New(Options{Name: "main", URL: "http://127.0.0.1:1", MaxQueryLength: 800, ShardSeries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if qs := promql.PlanWide(items, 800, BatchSize, never.shardValues); len(qs) != 1 || !qs[0].Wide() {
		t.Errorf("ShardSeries -1: %d queries, want one wide", len(qs))
	}
}

// agedSource is a source of url whose caches read their age from the
// returned time, which only the test moves.
func agedSource(t *testing.T, url string) (*Source, *time.Time) {
	t.Helper()
	src, err := New(Options{Name: "main", URL: url})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	src.exprs.age.now = func() time.Time { return now }
	src.plans.age.now = src.exprs.age.now
	return src, &now
}
