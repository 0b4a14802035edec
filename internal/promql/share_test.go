package promql

import (
	"testing"
	"unsafe"
)

// Share leaves the fusions equal, with one copy of a key for all the
// expressions that fuse under it, and values taken from their own text.
func TestShare(t *testing.T) {
	seen := map[string]string{}
	var exprs []*Expr
	for _, text := range []string{`app_up{app="a"}`, `app_up{app="b"}`, `sum by (app) (rate(x{app="a\"q"}[5m]))`} {
		e, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		before := append([]fusion(nil), e.fusions()...)
		e.Share(seen)
		if len(before) != len(e.fusions()) {
			t.Fatalf("%s: %d fusions, then %d", text, len(before), len(e.fusions()))
		}
		for i, f := range e.fusions() {
			if f != before[i] {
				t.Errorf("%s: fusion %d was %+v, is %+v", text, i, before[i], f)
			}
		}
		exprs = append(exprs, e)
	}
	a, b := exprs[0].fusions()[0], exprs[1].fusions()[0]
	if unsafe.StringData(a.key) != unsafe.StringData(b.key) {
		t.Errorf("the keys of %q and %q are two copies", exprs[0], exprs[1])
	}
	if v := b.value; unsafe.StringData(v) != unsafe.StringData(exprs[1].text[len(`app_up{app="`):]) {
		t.Errorf("value %q is not part of its text", v)
	}
	if got := exprs[2].fusions()[0].value; got != `a"q` {
		t.Errorf("an escaped value became %q", got)
	}
}
