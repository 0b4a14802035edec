package promql

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	good := []string{
		`up`,
		`up{job="a"} # a comment`,
		"sum by (app) (\n  rate(http_requests_total{app=\"a\",code=~\"5..\"}[5m])\n)",
		`1`,
		`scalar(up)`,
		`up offset 5m`,
		`up @ 1700000000`,
		`max_over_time(rate(x[1m])[10m:1m])`,
		`sum(up) > bool 0`,
		`up or vector(0)`,
	}
	for _, s := range good {
		e, err := Parse(s)
		if err != nil {
			t.Errorf("Parse(%q): %v", s, err)
			continue
		}
		if e.String() != s {
			t.Errorf("Parse(%q).String() = %q", s, e.String())
		}
	}
	bad := []struct{ expr, want string }{
		{`up{`, "1:4: parse error: unexpected end of input inside braces"},
		{`rate(up[1m]`, "1:12: parse error: unclosed left parenthesis"},
		{"sum(\n  up) + \"x\"", `2:9: parse error: binary expression must contain only scalar and instant vector types`},
		{`up[5m]`, "1:1: the expression returns a range vector; it must return an instant vector or a scalar"},
		{`"text"`, "1:1: the expression returns a string; it must return an instant vector or a scalar"},
		{``, "the expression is empty"},
		{" \n ", "the expression is empty"},
		{`   # only a comment`, "no expression found in input"},
		{`nosuchfunc(up)`, `unknown function with name "nosuchfunc"`},
	}
	for _, b := range bad {
		_, err := Parse(b.expr)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", b.expr, err, b.want)
		}
	}
}

func TestScalar(t *testing.T) {
	for s, want := range map[string]bool{`1`: true, `scalar(up)`: true, `time() - 5`: true, `up`: false, `vector(1)`: false} {
		e, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if e.Scalar() != want {
			t.Errorf("Parse(%q).Scalar() = %v, want %v", s, e.Scalar(), want)
		}
	}
}

// Nothing a configuration file can hold makes Parse panic, and what it
// accepts is an instant vector or a scalar that prints to text it accepts
// again.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`up`, `up{`, `sum by (app) (rate(x{app="a"}[5m]))`, `1`, "up # c\n", `x[5m:1m] @ start()`, `"s"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			return
		}
		if _, err := Parse(e.printed()); err != nil {
			t.Errorf("Parse(%q) accepted, but its printed form %q is refused: %v", s, e.printed(), err)
		}
		if got := e.tree().String(); got != e.printed() {
			t.Errorf("Parse(%q) again gives %q, not %q", s, got, e.printed())
		}
	})
}
