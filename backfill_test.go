package availmon

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Range queries stay under Prometheus's 11,000 points per series, and the
// chunks cover the range exactly once.
func TestChunks(t *testing.T) {
	start := t0
	end := t0.Add(30 * 24 * time.Hour)
	if cs := chunks(start, end, time.Minute, 1_000_000); len(cs) != 5 {
		t.Errorf("30 days a minute apart, as large as allowed: %d chunks, want 5", len(cs))
	}
	cs := chunks(start, end, time.Minute, 6*60)
	if len(cs) != 120 {
		t.Fatalf("30 days a minute apart, six hours each: %d chunks, want 120", len(cs))
	}
	next := start
	for _, c := range cs {
		if !c.Start.Equal(next) {
			t.Fatalf("chunk starts at %s, want %s", c.Start, next)
		}
		if n := c.End.Sub(c.Start)/time.Minute + 1; n > 11_000 {
			t.Errorf("chunk of %d points", n)
		}
		next = c.End.Add(time.Minute)
	}
	if !next.Equal(end) {
		t.Errorf("chunks end at %s, want %s", next, end)
	}
	if cs := chunks(start, start, time.Minute, 6*60); len(cs) != 0 {
		t.Errorf("an empty range has %d chunks", len(cs))
	}
}

// A gap is a run of unobserved minutes longer than the cycles' cadence; the
// minutes between two cycles are not one.
func TestGaps(t *testing.T) {
	from := t0
	minute := func(i int) int64 { return from.Unix()/60 + int64(i) }
	seen := map[int64]bool{}
	for i := 10; i < 100; i += 2 { // a cycle every 2 minutes from minute 10 to 98
		seen[minute(i)] = true
	}
	// minutes 40..69 not seen: availmon was down
	for i := 40; i < 70; i++ {
		delete(seen, minute(i))
	}
	want, spans := gaps(seen, from, from.Add(100*time.Minute), 2)
	var got []int
	for i := range 100 {
		if want[minute(i)] {
			got = append(got, i)
		}
	}
	var wantMinutes []int
	for i := range 10 {
		wantMinutes = append(wantMinutes, i) // before the first cycle
	}
	for i := 39; i < 70; i++ {
		wantMinutes = append(wantMinutes, i)
	}
	wantMinutes = append(wantMinutes, 99) // after the last cycle, up to now
	if diff := cmp.Diff(wantMinutes, got); diff != "" {
		t.Errorf("gap minutes (-want +got):\n%s", diff)
	}
	// Gaps less than an hour apart are asked for in one span.
	if len(spans) != 1 || !spans[0][0].Equal(from) || !spans[0][1].Equal(from.Add(100*time.Minute)) {
		t.Errorf("spans %v, want one over the whole range", spans)
	}
}

// The backfill fills only buckets nobody observed, and adds its checks to
// the 24h counters of the app, its location and the system, without
// changing any average response time.
func TestApplyPast(t *testing.T) {
	tm := newTestMonitor(t)
	tm.src.Set("checkout", StatusUp, 100*time.Millisecond)
	tm.clock.Set(t0.Add(30 * time.Minute))
	tm.scrape(t)
	observed := t0.Add(30*time.Minute).Unix() / 60
	first := observed - 60
	res := &pastResult{asked: 3, first: first, minutes: make([][2]int32, 61), written: make([][2]int32, 61),
		firstHour: t0.Unix()/3600 - 23, names: []string{"checkout", "gone"}, hours: make([][24][2]int32, 2),
		parts: []pastPart{{backend: "main", lo: 0, hi: 2}}}
	res.minutes[observed-first] = [2]int32{0, 3}   // observed: must stay as it was
	res.minutes[observed-5-first] = [2]int32{2, 1} // a gap: filled
	res.hours[0][23] = [2]int32{15, 5}             // t0's hour: 15 up, 5 down
	res.hours[1][23] = [2]int32{15, 5}             // not configured any more: ignored
	tm.clock.Set(t0.Add(31 * time.Minute))
	if n, _ := tm.applyPast(res, tm.clock.Now(), nil); n != 1 {
		t.Errorf("filled %d minutes, want 1", n)
	}
	points, _ := historyPoints(t, tm, "1h", "1m")
	got := map[string]any{}
	for _, p := range points {
		got[p.(obj)["timestamp"].(string)] = p.(obj)["overall_availability"]
	}
	if got[ts(t0.Add(25*time.Minute))] != 66.67 {
		t.Errorf("the gap minute: %v, want 66.67", got[ts(t0.Add(25*time.Minute))])
	}
	if obsAvail := got[ts(t0.Add(30*time.Minute))]; obsAvail == 0.0 {
		t.Errorf("the observed minute was overwritten by the past")
	}
	_, body := get(t, tm.h, "/api/metrics/summary")
	for _, a := range body["data"].(obj)["apps_summary"].(arr) {
		if a.(obj)["name"] != "checkout" {
			continue
		}
		// 15 past up + 1 observed up, 5 past down
		if u := a.(obj)["uptime_24h"]; u != 76.19 {
			t.Errorf("checkout uptime_24h = %v, want 76.19 (16 up of 21)", u)
		}
		if rt := a.(obj)["avg_response_time"]; rt != 0.1 {
			t.Errorf("checkout avg_response_time = %v, want 0.1: past checks have none", rt)
		}
	}
}

// The 24h counters are asked per run of unobserved minutes within a clock
// hour, evaluated half a minute after the run's last minute; whole hours
// an hour apart share one range query.
func TestHourRuns(t *testing.T) {
	h0 := t0.Unix()/3600 - 23 // the day window's first hour
	now := time.Unix((h0+23)*3600+20*60+15, 0)
	min := func(h, m int64) int64 { return (h0+h)*60 + m }
	at := func(h, m int64) time.Time { return time.Unix(min(h, m)*60-30, 0) }
	want := map[int64]bool{}
	for m := min(0, 0) - 120; m < min(23, 20); m++ { // from before the window up to now
		want[m] = true
	}
	for m := min(5, 10); m < min(5, 40); m++ { // observed: hour 5's minutes 10..39
		delete(want, m)
	}
	win := pastWindow{want: want, end: now.Truncate(time.Minute), firstHour: h0}
	got := hourRuns(win, time.Unix(min(0, 0)*60-7200, 0))
	exp := []PastRange{
		{Start: at(1, 0), End: at(5, 0), Step: time.Hour, Window: time.Hour}, // hours 0..4
		{Start: at(5, 10), End: at(5, 10), Step: time.Hour, Window: 10 * time.Minute},
		{Start: at(6, 0), End: at(6, 0), Step: time.Hour, Window: 20 * time.Minute}, // 5:40..5:59
		{Start: at(7, 0), End: at(23, 0), Step: time.Hour, Window: time.Hour},       // hours 6..22
		{Start: at(23, 20), End: at(23, 20), Step: time.Hour, Window: 20 * time.Minute},
	}
	if diff := cmp.Diff(exp, got); diff != "" {
		t.Errorf("hour runs (-want +got):\n%s", diff)
	}
	// Data that begins at 10:30 is asked from then on only.
	got = hourRuns(win, time.Unix(min(10, 30)*60, 0))
	if len(got) != 3 || !got[0].Start.Equal(at(11, 0)) || got[0].Window != 30*time.Minute {
		t.Errorf("from 10:30: %+v", got)
	}
}

// What one backend answered is applied while another is still asked, and
// the result once both have answered is that of one complete backfill: the
// minute counts grow in the buckets the backfill wrote, and each backend's
// 24h counters are added once.
func TestApplyPastPerBackend(t *testing.T) {
	gap := t0.Add(25 * time.Minute)
	first := gap.Unix()/60 - 5
	newRes := func() *pastResult {
		return &pastResult{asked: 3, first: first, minutes: make([][2]int32, 10), written: make([][2]int32, 10),
			firstHour: t0.Unix()/3600 - 23, names: []string{"checkout", "search", "billing"}, hours: make([][24][2]int32, 3),
			parts: []pastPart{{backend: "main", lo: 0, hi: 2}, {backend: "other", lo: 2, hi: 3}}}
	}
	answerMain := func(res *pastResult) {
		res.merge([]pastAdd{{k: 5, h: -1, up: 2}, {k: 0, h: 23, up: 10}, {k: 1, h: 23, up: 9, down: 1}})
	}
	answerOther := func(res *pastResult) {
		res.merge([]pastAdd{{k: 5, h: -1, down: 1}, {k: 6, h: -1, down: 1}, {k: 2, h: 23, up: 5, down: 5}})
	}
	view := func(tm *testMonitor) (obj, obj) {
		points, _ := historyPoints(t, tm, "1h", "1m")
		byTime := obj{}
		for _, p := range points {
			byTime[p.(obj)["timestamp"].(string)] = p.(obj)["overall_availability"]
		}
		_, body := get(t, tm.h, "/api/metrics/summary")
		uptime := obj{}
		for _, a := range body["data"].(obj)["apps_summary"].(arr) {
			uptime[a.(obj)["name"].(string)] = a.(obj)["uptime_24h"]
		}
		return byTime, uptime
	}
	at := t0.Add(31 * time.Minute)

	// One complete backfill.
	whole := newTestMonitor(t)
	whole.clock.Set(at)
	res := newRes()
	answerMain(res)
	answerOther(res)
	if n, done := whole.applyPast(res, at, nil); n != 2 || len(done) != 2 {
		t.Fatalf("complete backfill: filled %d minutes and %d backends, want 2 and 2", n, len(done))
	}
	wantHistory, wantUptime := view(whole)

	// The same, "other" down at first.
	tm := newTestMonitor(t)
	tm.clock.Set(at)
	res = newRes()
	answerMain(res)
	filled, done := tm.applyPast(res, at, []*pastJob{{backend: "other"}})
	if filled != 1 || len(done) != 1 || done[0].backend != "main" {
		t.Fatalf("main answered: filled %d minutes, done %v; want 1, main", filled, done)
	}
	history, uptime := view(tm)
	if got := history[ts(gap)]; got != 100.0 {
		t.Errorf("main answered: the gap minute %v, want 100 (main's two apps up)", got)
	}
	if uptime["checkout"] != 100.0 || uptime["search"] != 90.0 {
		t.Errorf("main answered: uptime_24h %v, want checkout 100, search 90", uptime)
	}
	if uptime["billing"] != nil {
		t.Errorf("main answered: billing's uptime_24h %v, want none yet", uptime["billing"])
	}
	// A round where nothing answered changes nothing.
	if n, done := tm.applyPast(res, at, []*pastJob{{backend: "other"}}); n != 0 || done != nil {
		t.Errorf("a round with no answer: filled %d, done %v", n, done)
	}
	answerOther(res)
	filled, done = tm.applyPast(res, at, nil)
	if filled != 1 || len(done) != 1 || done[0].backend != "other" {
		t.Fatalf("other answered: filled %d minutes, done %v; want 1, other", filled, done)
	}
	history, uptime = view(tm)
	if diff := cmp.Diff(wantHistory, history); diff != "" {
		t.Errorf("history applied in two rounds unlike in one (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantUptime, uptime); diff != "" {
		t.Errorf("uptime_24h applied in two rounds unlike in one (-want +got):\n%s", diff)
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
