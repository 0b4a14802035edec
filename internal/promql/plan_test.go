package promql

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/common/model"
)

func mustParse(t testing.TB, s string) *Expr {
	t.Helper()
	e, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return e
}

// Which expressions may be fused, and by which label: only where the tree
// keeps the label on every series and computes each from its own value's
// series.
func TestFusions(t *testing.T) {
	tests := []struct {
		expr string
		want []string // label=value of each fusion
	}{
		{`app_up{app="a"}`, []string{"app=a"}},
		{`app_up{app="a"} # comment`, []string{"app=a"}},
		{`app_up{job="j",instance="i"}`, []string{"instance=i", "job=j"}},
		{`sum by (app) (rate(http_requests_total{app="a",code=~"5.."}[5m]))`, []string{"app=a"}},
		{`sum without (instance) (rate(x{app="a"}[5m]))`, []string{"app=a"}},
		{`max_over_time(rate(x{app="a"}[1m])[10m:1m])`, []string{"app=a"}},
		{`x{app="a"} offset 5m`, []string{"app=a"}},
		{`x{app="a"} @ 1700000000`, []string{"app=a"}},
		{`x{app="a"} > 0`, []string{"app=a"}},
		{`x{app="a"} > bool 0`, []string{"app=a"}},
		{`2 * x{app="a"} + 1`, []string{"app=a"}},
		{`-x{app="a"}`, []string{"app=a"}},
		{`x{app="a"} / y{app="a"}`, []string{"app=a"}},
		{`x{app="a"} / on (app, job) y{app="a"}`, []string{"app=a"}},
		{`x{app="a"} / ignoring (job) y{app="a"}`, []string{"app=a"}},
		{`x{app="a"} and y`, []string{"app=a"}},
		{`x{app="a"} unless on () y`, []string{"app=a"}},
		{`x{app="a"} or y{app="a"}`, []string{"app=a"}},
		{`histogram_quantile(0.9, sum by (le, app) (rate(h_bucket{app="a"}[5m])))`, []string{"app=a"}},
		{`label_replace(x{app="a"}, "dst", "$1", "app", "(.*)")`, []string{"app=a"}},
		{`topk by (app) (1, x{app="a"})`, []string{"app=a"}},
		{`count_values by (app) ("v", x{app="a"})`, []string{"app=a"}},
		{`clamp_max(x{app="a"}, scalar(sum(y)))`, []string{"app=a"}},
		{`x{app="a",job="j"} * on (job) group_left y{job="j"}`, []string{"job=j"}},

		// Not fused: the label is dropped, or results would mix apps.
		{`sum(x{app="a"})`, nil},
		{`sum by (job) (x{app="a"})`, nil},
		{`sum without (app) (x{app="a"})`, nil},
		{`absent(x{app="a"})`, nil},
		{`absent_over_time(x{app="a"}[5m])`, nil},
		{`x{app="a"} or vector(0)`, nil},
		{`x{app="a"} or on () vector(0)`, nil},
		{`scalar(x{app="a"})`, nil},
		{`vector(scalar(x{app="a"}))`, nil},
		{`x{app="a"} / on (job) y{app="a"}`, nil},
		{`x{app="a"} / ignoring (app) y{app="a"}`, nil},
		{`x{app="a"} * y`, nil},
		{`x{app="a"} / y{app="b"}`, nil},
		{`x{app="a"} > scalar(y{app="a"})`, nil},
		{`label_replace(x{app="a"}, "app", "z", "", "")`, nil},
		{`topk(1, x{app="a"})`, nil},
		{`count_values by (app) ("app", x{app="a"})`, nil},
		{`x{app="a",app!="b"}`, nil},
		{`x{app=""}`, nil},
		{`x{app=~"a"}`, nil},
		{`x`, nil},
		{`1`, nil},
		{`vector(1)`, nil},
		{`histogram_quantile(0.9, h_bucket{le="1"})`, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range mustParse(t, tt.expr).fusions() {
			got = append(got, f.label()+"="+f.value)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("fusions of %s (-want +got):\n%s", tt.expr, diff)
		}
	}
}

func parseAll(t testing.TB, exprs ...string) []*Expr {
	out := make([]*Expr, len(exprs))
	for i, s := range exprs {
		if s != "" {
			out[i] = mustParse(t, s)
		}
	}
	return out
}

func texts(qs []*Query) []string {
	var out []string
	for _, q := range qs {
		out = append(out, q.String())
	}
	return out
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name  string
		exprs []string
		want  []string
	}{
		{
			name:  "one selector, values sorted and escaped",
			exprs: []string{`up{app="b"}`, `up{app="a.b|c"}`, `up{app="a"}`, `up{app="b"}`},
			want:  []string{`up{app=~"a|a\\.b\\|c|b"}`},
		},
		{
			name:  "inside functions and aggregations that keep the label",
			exprs: []string{`sum by (app) (rate(r{app="x",code=~"5.."}[5m]))`, `sum by (app) (rate(r{code=~"5..",app="y"}[5m])) # y`},
			want:  []string{`sum by (app) (rate(r{app=~"x|y",code=~"5.."}[5m]))`},
		},
		{
			name:  "one app alone is asked as itself",
			exprs: []string{`up{app="a"} # mine`},
			want:  []string{`up{app="a"}`},
		},
		{
			name:  "not fusable: tagged terms in a balanced or tree; scalars as vectors; equal ones once",
			exprs: []string{`sum(x)`, `1`, `x or vector(0)`, `sum(x)`, ``},
			want: []string{`(label_replace(sum(x), "availmon_term", "0", "", "") or ` +
				`(label_replace(vector(1), "availmon_term", "1", "", "") or label_replace(x or vector(0), "availmon_term", "2", "", "")))`},
		},
		{
			name:  "a fused group next to a plain term",
			exprs: []string{`up{app="a"}`, `absent(up{app="a"})`, `up{app="b"}`},
			want:  []string{`(label_replace(up{app=~"a|b"}, "availmon_term", "0", "", "") or label_replace(absent(up{app="a"}), "availmon_term", "1", "", ""))`},
		},
		{
			name:  "the most shared label wins",
			exprs: []string{`up{job="j",instance="1"}`, `up{job="j",instance="2"}`, `up{job="k",instance="1"}`},
			want: []string{`(label_replace(up{instance=~"1|2",job="j"}, "availmon_term", "0", "", "") or ` +
				`label_replace(up{instance="1",job="k"}, "availmon_term", "1", "", ""))`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := texts(Plan(parseAll(t, tt.exprs...), 1<<20, 200))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("queries (-want +got):\n%s", diff)
			}
			for _, q := range got {
				if _, err := Parse(q); err != nil {
					t.Errorf("planned query %q does not parse: %v", q, err)
				}
			}
		})
	}
}

// Values are quoted so that the regular expression matches exactly them.
func TestRegexQuotesValues(t *testing.T) {
	values := []string{`a.b`, `a|b`, `(x)`, `x*`, `^y$`, `\`, `é"`, "new\nline", `[z]`}
	re := regexp.MustCompile("^(?:" + regex(values) + ")$")
	for _, v := range values {
		if !re.MatchString(v) {
			t.Errorf("%q does not match its own value", v)
		}
	}
	for _, other := range []string{`aXb`, `a`, `b`, `x`, `xx`, `y`, `z`, ``} {
		if re.MatchString(other) {
			t.Errorf("%q matches, but is none of the values", other)
		}
	}
}

// A fused group longer than maxLen is split; every query stays within it,
// and together they ask for every app once.
func TestPlanSplitsByLength(t *testing.T) {
	var exprs []string
	for i := range 1000 {
		exprs = append(exprs, fmt.Sprintf(`app_up{app="app-%d"}`, i))
	}
	for i := range 300 {
		exprs = append(exprs, fmt.Sprintf(`sum(x{n="%d"}) > bool 0`, i))
	}
	items := parseAll(t, exprs...)
	const maxLen = 2000
	qs := Plan(items, maxLen, 50)
	seen := make(map[int]int)
	for _, q := range qs {
		if n := len(q.String()); n > maxLen {
			t.Errorf("query of %d bytes, over %d", n, maxLen)
		}
		if len(q.terms) > 50 {
			t.Errorf("query of %d terms", len(q.terms))
		}
		for _, i := range q.Items() {
			seen[i]++
		}
	}
	for i := range items {
		if seen[i] != 1 {
			t.Errorf("item %d asked %d times", i, seen[i])
		}
	}
	t.Logf("%d queries", len(qs))
	if len(qs) > 40 {
		t.Errorf("%d queries, want the 1000 fused apps in few", len(qs))
	}
}

// A fused group split by length is cut in the order its items are listed,
// whatever the order of its values as text ("app-10" before "app-2"): the
// apps of each query are then a run of the list, which the monitor hands
// to Check without copying them. Each part's regular expression is still
// sorted.
func TestPlanPartsAreRunsOfItems(t *testing.T) {
	var exprs []string
	for i := range 1000 {
		exprs = append(exprs, fmt.Sprintf(`app_up{app="app-%d"}`, i))
	}
	qs := Plan(parseAll(t, exprs...), 2000, 50)
	if len(qs) < 2 {
		t.Fatalf("%d queries, want the group split", len(qs))
	}
	next := 0
	for k, q := range qs {
		items := q.Items()
		for j, it := range items {
			if it != next+j {
				t.Fatalf("query %d asks items %v..., want a run from %d", k, items[:min(len(items), 5)], next)
			}
		}
		next += len(items)
		values := q.terms[0].values
		if !slices.IsSorted(values) {
			t.Errorf("query %d: values not sorted: %v...", k, values[:min(len(values), 5)])
		}
	}
}

// Answers go back to the items that asked, by tag and by the fused label.
func TestAnswer(t *testing.T) {
	// Items 0 and 4, and 2 and 6, are asked once and answered together.
	items := parseAll(t, `up{app="a"}`, `up{app="b"}`, `sum(x)`, `1`, `up{app="a"}`, `up{app="c"}`, `sum(x)`)
	qs := Plan(items, 1<<20, 200)
	if len(qs) != 1 {
		t.Fatalf("%d queries: %q", len(qs), texts(qs))
	}
	sample := func(v float64, lbls ...string) *model.Sample {
		m := model.Metric{}
		for i := 0; i < len(lbls); i += 2 {
			m[model.LabelName(lbls[i])] = model.LabelValue(lbls[i+1])
		}
		return &model.Sample{Metric: m, Value: model.SampleValue(v)}
	}
	answer := model.Vector{
		sample(1, "__name__", "up", "app", "a", TagLabel, "0"),
		sample(0, "__name__", "up", "app", "b", TagLabel, "0"),
		sample(0.5, "__name__", "up", "app", "b", "instance", "2", TagLabel, "0"),
		sample(7, TagLabel, "1"),
		sample(1, TagLabel, "2"),
		sample(9, "app", "a", TagLabel, "99"), // not ours: ignored
	}
	got := make(map[int][]float64)
	if err := qs[0].Answer(answer, func(i int, s *model.Sample) { got[i] = append(got[i], float64(s.Value)) }); err != nil {
		t.Fatal(err)
	}
	want := map[int][]float64{0: {1}, 1: {0, 0.5}, 2: {7}, 3: {1}, 4: {1}, 6: {7}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers per item (-want +got):\n%s", diff)
	}

	// One plain term is sent as it is: a scalar answer is its one sample.
	one := Plan(parseAll(t, `time()`), 1<<20, 200)[0]
	got = make(map[int][]float64)
	if err := one.Answer(&model.Scalar{Value: 3}, func(i int, s *model.Sample) { got[i] = append(got[i], float64(s.Value)) }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[int][]float64{0: {3}}, got); diff != "" {
		t.Errorf("scalar answer (-want +got):\n%s", diff)
	}
	if err := one.Answer(model.Matrix{}, func(int, *model.Sample) {}); err == nil || !strings.Contains(err.Error(), "matrix") {
		t.Errorf("a matrix answer: err %v", err)
	}
	// A combined query answered with a scalar is a faulty server's doing.
	if err := qs[0].Answer(&model.Scalar{Value: 1}, func(int, *model.Sample) {}); err == nil {
		t.Error("a combined query accepted a scalar answer")
	}
	vec := Plan(parseAll(t, `up`), 1<<20, 1)[0]
	if err := vec.Answer(&model.Scalar{Value: 1}, func(int, *model.Sample) {}); err == nil {
		t.Error("a vector expression accepted a scalar answer")
	}
}

// Split halves terms, then fused values, down to single expressions.
func TestSplit(t *testing.T) {
	items := parseAll(t, `up{app="a"}`, `up{app="b"}`, `up{app="c"}`, `up{app="a"}`, `sum(x)`)
	q := Plan(items, 1<<20, 200)[0]
	var leaves [][]int
	var walk func(*Query, int)
	walk = func(q *Query, depth int) {
		if depth > 10 {
			t.Fatal("Split does not end")
		}
		parts := q.Split()
		if parts == nil {
			leaves = append(leaves, q.Items())
			if _, err := Parse(q.String()); err != nil {
				t.Errorf("leaf %q: %v", q.String(), err)
			}
			return
		}
		for _, p := range parts {
			walk(p, depth+1)
		}
	}
	walk(q, 0)
	want := [][]int{{0, 3}, {1}, {2}, {4}}
	if diff := cmp.Diff(want, leaves); diff != "" {
		t.Errorf("leaves (-want +got):\n%s", diff)
	}
}

// BenchmarkPlan10k plans 10,000 fusable selectors, as a cycle does.
func BenchmarkPlan10k(b *testing.B) {
	items := make([]*Expr, 10_000)
	for i := range items {
		items[i] = mustParse(b, fmt.Sprintf(`app_up{app="app-%d"}`, i))
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, q := range Plan(items, 32<<10, 200) {
			_ = q.String()
		}
	}
}

// Whatever the expressions, the planned queries parse, stay an instant
// vector or a scalar, and ask for every item exactly once; so do their
// halves.
func FuzzPlan(f *testing.F) {
	f.Add(`up{app="a"}`, `up{app="b"}`, `sum(x)`, "c.d", 100)
	f.Add(`rate(x{job="j",app="a"}[5m]) > 0`, `1`, `x or vector(0)`, `a"b\`, 50)
	f.Fuzz(func(t *testing.T, a, b, c, value string, maxLen int) {
		var items []*Expr
		for _, s := range []string{a, b, c, strings.ReplaceAll(a, `"a"`, strconv.Quote(value))} {
			if e, err := Parse(s); err == nil {
				items = append(items, e, nil, e)
			}
		}
		var check func(qs []*Query, depth int)
		check = func(qs []*Query, depth int) {
			seen := make(map[int]int)
			for _, q := range qs {
				if _, err := Parse(q.String()); err != nil {
					t.Fatalf("planned query %q: %v", q.String(), err)
				}
				for _, i := range q.Items() {
					seen[i]++
				}
				if depth < 3 {
					if parts := q.Split(); parts != nil {
						check(parts, depth+1)
					}
				}
			}
			if depth == 0 {
				for i, e := range items {
					if want := map[bool]int{true: 1, false: 0}[e != nil]; seen[i] != want {
						t.Fatalf("item %d asked %d times", i, seen[i])
					}
				}
			}
		}
		check(Plan(items, max(0, maxLen%5000), 1+abs(maxLen)%10), 0)
		check(PlanWide(items, max(0, maxLen%5000), 1+abs(maxLen)%10, ShardValues), 0)
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
