package promql

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// A wide group of more than ShardValues values is asked in shards, each
// alone in its query, that select every value once between them.
func TestWideGroupAskedInShards(t *testing.T) {
	const n = 2*ShardValues + 1
	exprs := make([]string, n)
	values := make([]string, n)
	for i := range n {
		values[i] = fmt.Sprintf("app-%06d", i)
		exprs[i] = fmt.Sprintf(`app_up{app=%q, env="prod"}`, values[i])
	}
	qs := PlanWide(parseAll(t, exprs...), 2000, 50, ShardValues)
	want := []string{
		`app_up{app=~"app-0[0-3].*",env="prod"}`,
		`app_up{app=~"app-0[4-6].*",env="prod"}`,
		`app_up{app=~"app-0[7-9].*|app-[1].*",env="prod"}`,
	}
	if diff := cmp.Diff(want, texts(qs)); diff != "" {
		t.Fatalf("queries (-want +got):\n%s", diff)
	}
	checkShards(t, qs, values)
}

// A group of at most ShardValues values is asked in one wide query.
func TestWideGroupOfShardValuesAskedWhole(t *testing.T) {
	exprs := make([]string, ShardValues)
	for i := range exprs {
		exprs[i] = fmt.Sprintf(`app_up{app="app-%06d"}`, i)
	}
	qs := PlanWide(parseAll(t, exprs...), 2000, 50, ShardValues)
	if got := texts(qs); len(got) != 1 || got[0] != `app_up` {
		t.Fatalf("queries %q, want one: app_up", got)
	}
}

// Shards are cut on the character after the values' common prefix,
// whatever it is: punctuation, a character of a class's syntax, a letter
// beyond ASCII; a value that is the prefix itself, or a value of one
// character, falls in the last shard.
func TestShardsOfAnyValues(t *testing.T) {
	for _, values := range [][]string{
		{"a", "b", "c", "d", "e", "f"},
		{"x-]", "x-\\", "x--", "x-^", "x-[", "x-", "x-.", "x-\t1", "x-\t2"},
		{"çé", "çè", "çê", "ç€", "ç\U0001F600", "ç"},
		{"", "a", "ab", "b", "c"},
		{"same-1", "same-2"},
	} {
		for n := 2; n <= 4; n++ {
			qs := shardQueries(t, values, n)
			checkShards(t, qs, values)
		}
	}
}

// A term of values that are not all UTF-8, hold a newline, or all go on
// alike, is asked whole.
func TestShardsNotCut(t *testing.T) {
	for _, values := range [][]string{
		{"a\xff", "b", "c"},
		{"a\n", "b", "c"},
		{"app-1", "app-1x"},
	} {
		if qs := shardQueries(t, values, 3); len(qs) != 1 || qs[0].String() != `m{job="j"}` {
			t.Errorf("values %q: queries %q, want one: m{job=\"j\"}", values, texts(qs))
		}
	}
}

// shardQueries cuts a wide term of values into at most n shards and
// returns their queries.
func shardQueries(t testing.TB, values []string, n int) []*Query {
	t.Helper()
	tm := &term{expr: mustParse(t, `m{app="x", job="j"}`), label: "app", byValue: newValueItems(len(values)), wide: true, maxLen: 1000}
	for i, v := range values {
		if tm.byValue.add(v, i) {
			tm.values = append(tm.values, v)
		}
	}
	var qs []*Query
	for _, s := range tm.cut(n) {
		qs = append(qs, &Query{terms: []*term{s}})
	}
	return qs
}

// checkShards checks that each value is selected, by Prometheus's own
// matcher of the printed query, by exactly one of qs, the one that routes
// its series to its item, that the queries ask for every item once, and
// that a value no app asks for is selected once at most.
func checkShards(t testing.TB, qs []*Query, values []string) {
	t.Helper()
	asked := make(map[int]int)
	matchers := make([]*labels.Matcher, len(qs))
	for k, q := range qs {
		if !q.Wide() {
			t.Fatalf("query %q is not wide", q.String())
		}
		for _, it := range q.Items() {
			asked[it]++
		}
		matchers[k] = appMatcher(t, q.String())
	}
	for i, v := range values {
		if asked[i] != 1 {
			t.Errorf("item %d (%q) asked %d times, want once", i, v, asked[i])
		}
		selected := 0
		for k, q := range qs {
			route := q.Route([][]byte{[]byte(v)})
			if matchers[k] == nil || matchers[k].Matches(v) {
				selected++
				if route != i {
					t.Errorf("query %q selects %q and routes it to %d, want item %d", q.String(), v, route, i)
				}
			} else if route != -1 {
				t.Errorf("query %q does not select %q but routes it to %d", q.String(), v, route)
			}
		}
		if selected != 1 {
			t.Errorf("value %q selected by %d of %q, want one", v, selected, texts(qs))
		}
	}
	asks := make(map[string]bool, len(values))
	for _, v := range values {
		asks[v] = true
	}
	for _, v := range values {
		for _, other := range []string{v + "x", v + "-", "", "zzz", "\U0001F600"} {
			if asks[other] {
				continue
			}
			selected := 0
			for k := range qs {
				if matchers[k] == nil || matchers[k].Matches(other) {
					selected++
				}
			}
			if selected > 1 {
				t.Errorf("value %q, which no app asks for, selected by %d of %q", other, selected, texts(qs))
			}
		}
	}
}

// appMatcher parses query as Prometheus does and returns its selector's
// matcher on app, nil when it has none.
func appMatcher(t testing.TB, query string) *labels.Matcher {
	t.Helper()
	e, err := parser.NewParser(parser.Options{}).ParseExpr(query)
	if err != nil {
		t.Fatalf("query %q: %v", query, err)
	}
	var m *labels.Matcher
	parser.Inspect(e, func(nd parser.Node, _ []parser.Node) error {
		if vs, ok := nd.(*parser.VectorSelector); ok {
			for _, lm := range vs.LabelMatchers {
				if lm.Name == "app" {
					m = lm
				}
			}
		}
		return nil
	})
	return m
}

func FuzzShards(f *testing.F) {
	f.Add("app-1\x00app-2\x00app-3\x00bpp", uint8(2))
	f.Add("x-]\x00x-\\\x00x-\t\x00x-", uint8(3))
	f.Add("ç€\x00ç\U0001F600\x00ç", uint8(4))
	f.Fuzz(func(t *testing.T, joined string, n uint8) {
		values := strings.Split(joined, "\x00")
		seen := make(map[string]bool)
		for _, v := range values {
			if !utf8.ValidString(v) || seen[v] {
				return // values are distinct, and Prometheus's are UTF-8
			}
			seen[v] = true
		}
		checkShards(t, shardQueries(t, values, int(n%8)), values)
	})
}
