package objectives

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/timeline"
)

// totals is v's time over [from, to) in one step.
func totals(v objective.Source, from, to time.Time) timeline.Totals {
	sum := make([]timeline.Totals, 1)
	v.AddSteps(sum, []time.Time{from, to})
	return sum[0]
}

// A bucket's time is good and bad in the share of its checks within the
// threshold, cut at any instant; buckets without checks, and the time
// outside the track, are unknown.
func TestLatencyViewSteps(t *testing.T) {
	var tr track
	q := func(k int) time.Time { return t0.Add(time.Duration(k) * bucketLen) } // t0 starts a bucket
	for _, c := range []struct {
		at   time.Time
		fast bool
	}{{q(0), true}, {q(0).Add(time.Minute), true}, {q(0).Add(2 * time.Minute), true}, {q(0).Add(3 * time.Minute), false},
		{q(2).Add(time.Second), false}} { // the second quarter has none
		tr.add(c.at, c.fast)
	}
	v := tr.view()
	tests := []struct {
		name     string
		from, to time.Time
		want     timeline.Totals
	}{
		{"the first bucket: 3 of 4 fast", q(0), q(1), timeline.Totals{Up: 675 * time.Second, Down: 225 * time.Second}},
		{"a third of it", q(0).Add(5 * time.Minute), q(0).Add(10 * time.Minute), timeline.Totals{Up: 225 * time.Second, Down: 75 * time.Second}},
		{"a bucket without checks", q(1), q(2), timeline.Totals{Unknown: bucketLen}},
		{"the last, all slow", q(2), q(3), timeline.Totals{Down: bucketLen}},
		{"all of it and around", q(-2), q(5),
			timeline.Totals{Up: 675 * time.Second, Down: 225*time.Second + bucketLen, Unknown: 5 * bucketLen}},
		{"before", q(-10), q(-1), timeline.Totals{Unknown: 9 * bucketLen}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, totals(v, tt.from, tt.to)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	if got := totals(latencyView{}, q(0), q(1)); got != (timeline.Totals{Unknown: bucketLen}) {
		t.Errorf("an empty track: %+v, want all unknown", got)
	}
	both := latencyViews{v, v}
	if got := totals(both, q(0), q(1)); got != (timeline.Totals{Up: 1350 * time.Second, Down: 450 * time.Second}) {
		t.Errorf("two tracks: %+v, want their sum", got)
	}
}

// A view does not change as the track goes on: the last bucket is copied,
// the others are never written again. A check older than the last bucket
// is dropped; the track keeps its last keep buckets.
func TestTrackView(t *testing.T) {
	tr := track{keep: 3}
	tr.add(t0, true)
	v := tr.view()
	tr.add(t0.Add(time.Minute), false)           // the same bucket
	tr.add(t0.Add(bucketLen), false)             // the next
	before := totals(v, t0, t0.Add(2*bucketLen)) // as v saw it: one fast check
	if want := (timeline.Totals{Up: bucketLen, Unknown: bucketLen}); before != want {
		t.Errorf("the first view: %+v, want %+v", before, want)
	}
	tr.add(t0.Add(30*time.Second), true) // a clock stepped back: dropped
	if got := totals(tr.view(), t0, t0.Add(bucketLen)); got != (timeline.Totals{Up: bucketLen / 2, Down: bucketLen / 2}) {
		t.Errorf("the first bucket after a check from the past: %+v", got)
	}
	tr.add(t0.Add(5*bucketLen), true) // a gap of 3 buckets, then 3 kept
	if tr.base != t0.Unix()/900+3 || len(tr.buckets) != 3 {
		t.Errorf("base %d (t0's + %d), %d buckets; want t0's + 3, 3", tr.base, tr.base-t0.Unix()/900, len(tr.buckets))
	}
	if got := totals(tr.view(), t0, t0.Add(6*bucketLen)); got != (timeline.Totals{Up: bucketLen, Unknown: 5 * bucketLen}) {
		t.Errorf("after the trim: %+v", got)
	}
}

// Tracker.Check counts an app's checks against each threshold of its
// objectives; a new set keeps the tracks it still reads and drops the
// others.
func TestTrackerLatency(t *testing.T) {
	a300 := latencyDef(t, "a300", 300*time.Millisecond, objective.Subject{App: "a"})
	a1s := latencyDef(t, "a1s", time.Second, objective.Subject{App: "a"})
	set1, errs := Compile([]objective.Objective{a300, a1s, def(t, "avail", "30d", objective.Subject{App: "b"}, nil)}, time.UTC, fleet())
	if errs != nil {
		t.Fatal(errs)
	}
	var tr Tracker
	for k := range 30 { // a quarter of checks every 30 s, every third 500 ms
		rt := 100 * time.Millisecond
		if k%3 == 0 {
			rt = 500 * time.Millisecond
		}
		tr.Check(set1, 0, t0.Add(time.Duration(k)*30*time.Second), rt)
		tr.Check(set1, 1, t0.Add(time.Duration(k)*30*time.Second), rt) // b has no latency objective
	}
	if set1.Latency(1) || len(tr.tracks) != 2 {
		t.Fatalf("b counted (%v), or %d tracks, want 2", set1.Latency(1), len(tr.tracks))
	}
	now := t0.Add(bucketLen)
	snap, _ := tr.Evaluate(set1, now, newRecord().minutes(1, timeline.Up))
	if got := snap.Status(0).Totals; got != (timeline.Totals{Up: 600 * time.Second, Down: 300 * time.Second, Unknown: 30*24*time.Hour - bucketLen}) {
		t.Errorf("a300: %+v", got)
	}
	if got := snap.Status(1).Attainment; got != (objective.Ratio{Value: 1, OK: true}) {
		t.Errorf("a1s: attainment %+v, want 1", got)
	}
	j := snap.JSON(0)
	if j.Kind != "latency" || j.Threshold == nil || *j.Threshold != 0.3 {
		t.Errorf("JSON: kind %q, threshold %v", j.Kind, j.Threshold)
	}
	if j := snap.JSON(2); j.Kind != "availability" || j.Threshold != nil {
		t.Errorf("JSON of availability: kind %q, threshold %v", j.Kind, j.Threshold)
	}

	// a1s goes, a300 stays: its buckets go on; a 1s track starts empty if
	// it comes back.
	set2, _ := Compile([]objective.Objective{a300}, time.UTC, fleet())
	snap, _ = tr.Evaluate(set2, now, newRecord().minutes(1, timeline.Up))
	if got := snap.Status(0).Totals; got.Up != 600*time.Second {
		t.Errorf("a300 after the change of set: %+v", got)
	}
	if len(tr.tracks) != 1 {
		t.Errorf("%d tracks, want 1", len(tr.tracks))
	}
	set3, _ := Compile([]objective.Objective{a300, a1s}, time.UTC, fleet())
	snap, _ = tr.Evaluate(set3, now, newRecord().minutes(1, timeline.Up))
	if got := snap.Status(1).Totals; got.Up+got.Down != 0 {
		t.Errorf("a1s back: %+v, want nothing counted", got)
	}
}
