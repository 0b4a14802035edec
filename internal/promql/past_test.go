package promql

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/common/model"
)

// The backfill's queries, built around each term: counts without tags,
// hours tagged outside the subqueries, fused terms grouped by their label.
func TestPastStrings(t *testing.T) {
	items := parseAll(t, `up{job="a"}`, `up{job="b"}`, ``, `1`, `sum by (x) (y)`)
	qs := Plan(items, 10_000, 10)
	if len(qs) != 1 {
		t.Fatalf("%d queries, want 1", len(qs))
	}
	q := qs[0]
	fused := `up{job=~"a|b"}`
	for got, want := range map[string]string{
		q.CountsString(nil): `(label_replace(((count(group by (job) (` + fused + `)) or vector(0)) + ((count(group(vector(1))) or vector(0)) + (count(group(sum by (x) (y))) or vector(0)))), "availmon_count", "present", "", "") or ` +
			`label_replace(((count(group by (job) ((` + fused + `) == 0)) or vector(0)) + ((count(group((vector(1)) == 0)) or vector(0)) + (count(group((sum by (x) (y)) == 0)) or vector(0)))), "availmon_count", "down", "", ""))`,
		Plan(items[:2], 10_000, 10)[0].CountsString([]bool{true}): `(label_replace((count(` + fused + `) or vector(0)), "availmon_count", "present", "", "") or ` +
			`label_replace((count(group by (job) ((` + fused + `) == 0)) or vector(0)), "availmon_count", "down", "", ""))`,
		Plan(items[:2], 10_000, 10)[0].ProbeString(): `(label_replace(label_replace((count(` + fused + `) or vector(0)), "availmon_count", "series", "", ""), "availmon_term", "0", "", "") or ` +
			`label_replace(label_replace((count(group by (job) (` + fused + `)) or vector(0)), "availmon_count", "apps", "", ""), "availmon_term", "0", "", ""))`,
		q.HoursString(time.Hour, time.Minute, true): `(label_replace(count_over_time((group by (job) ((` + fused + `) == 0))[1h:1m]), "availmon_term", "0", "", "") or ` +
			`(label_replace(count_over_time((group((vector(1)) == 0))[1h:1m]), "availmon_term", "1", "", "") or ` +
			`label_replace(count_over_time((group((sum by (x) (y)) == 0))[1h:1m]), "availmon_term", "2", "", "")))`,
		Plan(items[:2], 10_000, 10)[0].HoursString(59*time.Minute, time.Minute, false): `count_over_time((group by (job) (` + fused + `))[59m:1m])`,
		Plan(items[:2], 10_000, 10)[0].StatesString(24*time.Hour, time.Minute, false): `(label_replace(count_over_time((` + fused + `)[1d:1m]), "availmon_count", "present", "", "") or ` +
			`label_replace(count_over_time(((` + fused + `) == 0)[1d:1m]), "availmon_count", "down", "", ""))`,
		Plan(items[:2], 10_000, 10)[0].StatesString(24*time.Hour, time.Minute, true): `(label_replace(count_over_time((group by (job) (` + fused + `))[1d:1m]), "availmon_count", "present", "", "") or ` +
			`label_replace(count_over_time((group by (job) ((` + fused + `) == 0))[1d:1m]), "availmon_count", "down", "", ""))`,
		// A plain term is one series: grouped either way.
		Plan(items[4:], 10_000, 10)[0].StatesString(time.Hour, time.Minute, false): `(label_replace(count_over_time((group(sum by (x) (y)))[1h:1m]), "availmon_count", "present", "", "") or ` +
			`label_replace(count_over_time((group((sum by (x) (y)) == 0))[1h:1m]), "availmon_count", "down", "", ""))`,
	} {
		if got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
		if _, err := Parse(got); err != nil {
			t.Errorf("%s: %v", got, err)
		}
	}
	tests := []struct {
		m    model.Metric
		want []int
	}{
		{model.Metric{TagLabel: "0", "job": "a"}, []int{0}},
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
	one := Plan(items[:2], 10_000, 10)[0]
	if got := one.ItemsOf(model.Metric{"job": "b"}); !cmp.Equal([]int{1}, got) {
		t.Errorf("ItemsOf = %v", got)
	}
}

// An ungrouped answer is read per app only while no value of a fused
// term has two series on one side.
func TestStatesGrouped(t *testing.T) {
	q := Plan(parseAll(t, `up{job="a"}`, `up{job="b"}`, `sum by (x) (y)`), 10_000, 10)[0]
	present := func(term, job, inst string) model.Metric {
		return model.Metric{CountLabel: "present", TagLabel: model.LabelValue(term), "job": model.LabelValue(job), "instance": model.LabelValue(inst)}
	}
	down := func(term, job, inst string) model.Metric {
		m := present(term, job, inst)
		m[CountLabel] = "down"
		return m
	}
	tests := []struct {
		name string
		ss   []model.Metric
		want bool
	}{
		{"one series a value", []model.Metric{present("0", "a", "1"), present("0", "b", "1"), down("0", "a", "1")}, false},
		{"a plain term", []model.Metric{present("0", "a", "1"), {CountLabel: "present", TagLabel: "1"}, {CountLabel: "down", TagLabel: "1"}}, false},
		{"two series of a", []model.Metric{present("0", "a", "1"), present("0", "a", "2")}, true},
		{"two down series of b", []model.Metric{down("0", "b", "1"), down("0", "b", "2")}, true},
		{"nothing", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := q.Grouped(tc.ss); got != tc.want {
				t.Errorf("Grouped = %v, want %v", got, tc.want)
			}
		})
	}
}
