package promql

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/common/model"
)

// MinString asks each item's smallest value: a fused selector grouped by
// its label, anything else as min(); ItemsOf maps each series back.
func TestMinString(t *testing.T) {
	items := parseAll(t, `up{job="a"}`, `up{job="b"}`, ``, `1`, `sum by (x) (y)`, `up{job="a"}`)
	qs := Plan(items, 10_000, 10)
	if len(qs) != 1 {
		t.Fatalf("%d queries, want 1", len(qs))
	}
	q := qs[0]
	want := `(label_replace(min by (job) (up{job=~"a|b"}), "availmon_term", "0", "", "") or ` +
		`(label_replace(min(vector(1)), "availmon_term", "1", "", "") or label_replace(min(sum by (x) (y)), "availmon_term", "2", "", "")))`
	if got := q.MinString(); got != want {
		t.Errorf("MinString = %s\nwant         %s", got, want)
	}
	if _, err := Parse(q.MinString()); err != nil {
		t.Error(err)
	}
	tests := []struct {
		m    model.Metric
		want []int
	}{
		{model.Metric{TagLabel: "0", "job": "a"}, []int{0, 5}},
		{model.Metric{TagLabel: "0", "job": "b"}, []int{1}},
		{model.Metric{TagLabel: "0", "job": "c"}, nil},
		{model.Metric{TagLabel: "1"}, []int{3}},
		{model.Metric{TagLabel: "2"}, []int{4}},
		{model.Metric{TagLabel: "3"}, nil},
		{model.Metric{TagLabel: "x"}, nil},
		{model.Metric{}, nil},
	}
	for _, tc := range tests {
		if got := q.ItemsOf(tc.m); !cmp.Equal(tc.want, got) {
			t.Errorf("ItemsOf(%v) = %v, want %v", tc.m, got, tc.want)
		}
	}
	// One term alone is not tagged.
	one := Plan(parseAll(t, `up{job="a"}`, `up{job="b"}`), 10_000, 10)[0]
	if got, want := one.MinString(), `min by (job) (up{job=~"a|b"})`; got != want {
		t.Errorf("MinString = %s, want %s", got, want)
	}
	if got := one.ItemsOf(model.Metric{"job": "b"}); !cmp.Equal([]int{1}, got) {
		t.Errorf("ItemsOf = %v", got)
	}
	plain := Plan(parseAll(t, `sum(x)`), 10_000, 10)[0]
	if got := plain.MinString(); got != `min(sum(x))` || !cmp.Equal([]int{0}, plain.ItemsOf(model.Metric{})) {
		t.Errorf("MinString = %s, ItemsOf = %v", got, plain.ItemsOf(model.Metric{}))
	}
}

func TestPastStrings(t *testing.T) {
	q := Plan(parseAll(t, `up{job="a"}`, `up{job="b"}`), 10_000, 10)[0]
	for got, want := range map[string]string{
		q.PresentString():                            `count(min by (job) (up{job=~"a|b"}))`,
		q.CountString("availmon_up"):                 `count_values("availmon_up", (min by (job) (up{job=~"a|b"})) != bool 0)`,
		q.UpString(time.Hour, time.Minute):           `sum_over_time(((min by (job) (up{job=~"a|b"})) != bool 0)[1h:1m])`,
		q.SamplesString(59*time.Minute, time.Minute): `count_over_time((min by (job) (up{job=~"a|b"}))[59m:1m])`,
	} {
		if got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
		if _, err := Parse(got); err != nil {
			t.Errorf("%s: %v", got, err)
		}
	}
}
