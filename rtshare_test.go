package availmon

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The apps a query answered side by side share its round trip: their
// histories keep it once in the monitor's table, and each shows it as its
// own in /api/apps/{name}, beside an app whose response time is its own.
// An app that leaves the configuration lets go of what it held there, and
// a reconfiguration that keeps an app keeps its history as it was.
func TestSharedResponseTimes(t *testing.T) {
	tm := newTestMonitor(t)
	const cycles = 5
	want := map[string][]any{}
	for i := range cycles {
		rt := time.Duration(300+i)*time.Millisecond + 7*time.Microsecond
		tm.src.Set("checkout", StatusUp, rt)
		tm.src.Set("search", StatusDown, rt)
		tm.src.Set("billing", StatusUp, rt/3) // its own
		want["checkout"] = append(want["checkout"], seconds(rt))
		want["search"] = append(want["search"], seconds(rt))
		want["billing"] = append(want["billing"], seconds(rt/3))
		tm.scrape(t)
		tm.clock.Advance(time.Minute)
	}
	if n := tm.state.rts.Len(); n != cycles {
		t.Errorf("the table holds %d response times, want one a cycle (%d)", n, cycles)
	}
	shown := func(app string) []any {
		t.Helper()
		_, body := get(t, tm.h, "/api/apps/"+app)
		var rts []any
		for _, e := range body["data"].(obj)["history"].(arr) {
			rts = append(rts, e.(obj)["response_time"])
		}
		return rts
	}
	for app, w := range want {
		if diff := cmp.Diff(w, shown(app)); diff != "" {
			t.Errorf("%s: response times (-want +got):\n%s", app, diff)
		}
	}
	o := reconfigured(tm) // search leaves; checkout stays
	if _, err := tm.Reconfigure(o); err != nil {
		t.Fatal(err)
	}
	if n := tm.state.rts.Len(); n != cycles {
		t.Errorf("with search gone, the table holds %d response times, want checkout's %d", n, cycles)
	}
	if diff := cmp.Diff(want["checkout"], shown("checkout")); diff != "" {
		t.Errorf("checkout after the reconfiguration: response times (-want +got):\n%s", diff)
	}
	o.Apps = o.Apps[1:] // checkout leaves too
	if _, err := tm.Reconfigure(o); err != nil {
		t.Fatal(err)
	}
	if n := tm.state.rts.Len(); n != 0 {
		t.Errorf("with every sharing app gone, the table holds %d response times", n)
	}
}

// A save writes the shared response times as each check's own: the
// monitor restored from it shares them again, by the apps side by side in
// the file, shows the same histories and saves the same bytes.
func TestSharedResponseTimesAcrossRestart(t *testing.T) {
	clock := newFakeClock(t0)
	st := &memStore{}
	before := newStoreMonitor(t, st, clock, func(o *Options) { o.HistorySize = 4 })
	for i := range 7 { // the ring wraps
		rt := time.Duration(300+i) * time.Millisecond
		before.src.Set("checkout", StatusUp, rt)
		before.src.Set("search", StatusDown, rt)
		before.src.Set("billing", StatusUp, 3*rt)
		before.scrape(t)
		clock.Advance(time.Minute)
	}
	if before.state.rts.Len() == 0 {
		t.Fatal("no response time shared: the fixture tests nothing")
	}
	if err := before.save(t.Context()); err != nil {
		t.Fatal(err)
	}
	after := newStoreMonitor(t, st, clock, func(o *Options) { o.HistorySize = 4 })
	if n := after.state.rts.Len(); n != 4 {
		t.Errorf("the restored monitor shares %d response times, want one for each of the 4 cycles its histories hold", n)
	}
	for _, app := range []string{"checkout", "search", "billing"} {
		b, a := dataOf(t, before, "/api/apps/"+app), dataOf(t, after, "/api/apps/"+app)
		if diff := cmp.Diff(b, a); diff != "" {
			t.Errorf("GET /api/apps/%s after the restart (-before +after):\n%s", app, diff)
		}
	}
	if b, a := before.encodeLive(0), after.encodeLive(0); !bytes.Equal(b, a) {
		t.Errorf("the restored monitor saves %d bytes unlike the %d of the one that shared its response times", len(a), len(b))
	}
}
