package promql

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A fused group too long for one query is asked wide, alone in its query,
// with every value of the label; its parts are exactly what Plan asks, and
// a series of a value not asked for answers nothing.
func TestPlanWide(t *testing.T) {
	var exprs []string
	for i := range 1000 {
		exprs = append(exprs, fmt.Sprintf(`app_up{app="app-%d", env="prod"}`, i))
	}
	exprs = append(exprs, `sum(x) > bool 0`, `rate(y{app="one"}[5m])`)
	items := parseAll(t, exprs...)
	const maxLen = 2000
	qs := PlanWide(items, maxLen, 50, ShardValues)
	var wide []*Query
	for _, q := range qs {
		if q.Wide() {
			wide = append(wide, q)
		}
	}
	if len(wide) != 1 || len(qs) != 2 {
		t.Fatalf("queries %q, want one wide and one of the others", texts(qs))
	}
	q := wide[0]
	if want := `app_up{env="prod"}`; q.String() != want {
		t.Errorf("wide query %q, want %q", q.String(), want)
	}
	if n := len(q.Items()); n != 1000 {
		t.Errorf("wide query answers %d items, want 1000", n)
	}
	next := 0
	for _, p := range q.Split() {
		if p.Wide() || len(p.String()) > maxLen {
			t.Errorf("part %q: wide or over %d bytes", p.String(), maxLen)
		}
		for _, it := range p.Items() {
			if it != next {
				t.Fatalf("part %q asks item %d, want %d", p.String(), it, next)
			}
			next++
		}
	}
	if next != 1000 {
		t.Errorf("parts ask %d items, want 1000", next)
	}
	route := func(app string) int { return q.Route([][]byte{[]byte(app)}) }
	if got := route("app-7"); got != 7 {
		t.Errorf("Route(app-7) = %d, want 7", got)
	}
	for _, other := range []string{"app-1000", "", "one"} {
		if got := route(other); got != -1 {
			t.Errorf("Route(%q) = %d, want -1: not asked for", other, got)
		}
	}
	if q.Narrowed() {
		t.Error("a new wide query is narrowed")
	}
	q.Narrow()
	if !q.Narrowed() {
		t.Error("Narrow did not narrow")
	}
}

// A group that fits one query, or whose selector would keep no other
// matcher (Prometheus refuses a selector without one), is planned as Plan
// plans it.
func TestPlanWideOnlyWhereItHelps(t *testing.T) {
	tests := []struct {
		name   string
		tmpl   string
		maxLen int
	}{
		{"fits one query", `app_up{app="app-%d"}`, 1 << 20},
		{"no other matcher", `{app="app-%d"}`, 2000},
		// Left without an equality matcher, these select about every series.
		{"any name", `{__name__=~".+", app="app-%d"}`, 2000},
		{"only a negative matcher", `{app="app-%d", job!=""}`, 2000},
		{"one selector of two unselective", `app_up{app="app-%[1]d"} * on(app) {__name__=~"info.*", app="app-%[1]d"}`, 2000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var exprs []string
			for i := range 1000 {
				exprs = append(exprs, fmt.Sprintf(tt.tmpl, i))
			}
			items := parseAll(t, exprs...)
			qs := PlanWide(items, tt.maxLen, 50, ShardValues)
			for _, q := range qs {
				if q.Wide() {
					t.Errorf("wide query %q", q.String())
				}
			}
			if diff := cmp.Diff(texts(Plan(items, tt.maxLen, 50)), texts(qs)); diff != "" {
				t.Errorf("(-Plan +PlanWide):\n%s", diff)
			}
		})
	}
}
