package availmon

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The backfill's retries wait BackfillRetryMin, then twice as long each
// time, up to BackfillRetryMax.
func TestBackfillBackoff(t *testing.T) {
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second,
		160 * time.Second, 320 * time.Second, 10 * time.Minute, 10 * time.Minute}
	var got []time.Duration
	for n := range want {
		got = append(got, backfillBackoff(n))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("backoff (-want +got):\n%s", d)
	}
	if d := backfillBackoff(1000); d != BackfillRetryMax {
		t.Errorf("backoff after 1000 retries: %s", d)
	}
}

// pastFake is a source that tells the past and adopts the queries another
// pastFake planned.
type pastFake struct{ *fakeSource }

// pastFakeQuery is a query of a pastFake; src is the source that asks it.
type pastFakeQuery struct {
	PastQuery
	src *pastFake
}

func (s pastFake) PlanPast(apps []App) []PastQuery { return []PastQuery{&pastFakeQuery{src: &s}} }

func (s pastFake) AdoptPast(q PastQuery) (PastQuery, bool) {
	fq, ok := q.(*pastFakeQuery)
	if !ok {
		return nil, false
	}
	return &pastFakeQuery{src: &s}, fq.src != nil
}

// A reconfiguration between two rounds of the backfill points its jobs at
// the backend's new source, and drops those of a backend whose source can
// no longer tell the past.
func TestBackfillRebindsAfterReconfigure(t *testing.T) {
	opts := func(src Source) func(*Options) {
		return func(o *Options) {
			o.Backends = []Backend{{Name: "main", URL: testPromURL, Source: src, BatchSize: 100}}
		}
	}
	first := pastFake{newFakeSource()}
	tm := newTestMonitor(t, opts(first))
	jobs, _, _ := tm.planBackfill()
	if len(jobs) == 0 {
		t.Fatal("no backfill job planned")
	}
	o := Options{Locations: []Location{telAviv, frankfurt}, Apps: tm.plan.apps[:tm.plan.nListed]}
	opts(first)(&o) // the same source: the job stays as it is
	if _, err := tm.Reconfigure(o); err != nil {
		t.Fatal(err)
	}
	q := jobs[0].q
	if jobs = tm.rebindPast(jobs); len(jobs) == 0 || jobs[0].q != q {
		t.Fatalf("after a reconfiguration that kept the source: %d jobs, query replaced: %v", len(jobs), len(jobs) > 0 && jobs[0].q != q)
	}
	replaced := pastFake{newFakeSource()}
	opts(replaced)(&o)
	if _, err := tm.Reconfigure(o); err != nil {
		t.Fatal(err)
	}
	jobs = tm.rebindPast(jobs)
	if len(jobs) == 0 || jobs[0].q.(*pastFakeQuery).src.fakeSource != replaced.fakeSource {
		t.Errorf("after the source was replaced: %d jobs, want them on the new source", len(jobs))
	}
	opts(newFakeSource())(&o) // main can no longer tell the past
	if _, err := tm.Reconfigure(o); err != nil {
		t.Fatal(err)
	}
	if jobs = tm.rebindPast(jobs); len(jobs) != 0 {
		t.Errorf("%d jobs left on a backend that cannot tell the past", len(jobs))
	}
}
