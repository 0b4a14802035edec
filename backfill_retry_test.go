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

// A reconfiguration between two rounds of the backfill points its jobs at
// the backend's new source, and drops those of a backend that is gone.
func TestBackfillRebindsAfterReconfigure(t *testing.T) {
	newSrc := func() *PrometheusSource {
		s, err := NewPrometheusSource(PrometheusOptions{Name: "main", URL: testPromURL})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	opts := func(src Source) func(*Options) {
		return func(o *Options) {
			o.Backends = []Backend{{Name: "main", URL: testPromURL, Source: src, BatchSize: PrometheusBatchSize}}
		}
	}
	tm := newTestMonitor(t, opts(newSrc()))
	jobs, _, _ := tm.planBackfill()
	if len(jobs) == 0 {
		t.Fatal("no backfill job planned")
	}
	o := Options{Locations: []Location{telAviv, frankfurt}, Apps: tm.plan.apps[:tm.plan.nListed]}
	replaced := newSrc()
	opts(replaced)(&o)
	if _, err := tm.Reconfigure(o); err != nil {
		t.Fatal(err)
	}
	jobs = tm.rebindPast(jobs)
	if len(jobs) == 0 || jobs[0].q.(*pastQuery).src != replaced {
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
