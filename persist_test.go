package availmon

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/internal/memstore"
	"github.com/availmon/availmon/internal/statefile"
	"github.com/google/go-cmp/cmp"
)

// memStore is availmontest.Store for the tests inside the package, which
// cannot import availmontest (it imports availmon). The real file store is
// tested in package filestore and through the binary.
type memStore = memstore.Store

var _ Store = (*memStore)(nil)

// newStoreMonitor is the fixture with a store, on a clock that outlives it.
func newStoreMonitor(t *testing.T, st Store, clock *fakeClock, opts ...func(*Options)) *testMonitor {
	t.Helper()
	opts = append([]func(*Options){func(o *Options) { o.Store, o.Clock = st, clock }}, opts...)
	tm := newTestMonitor(t, opts...)
	tm.clock = clock
	return tm
}

// runCycles scrapes n cycles, a minute apart, with billing flipping between
// up and down so that every counter moves.
func runCycles(t *testing.T, tm *testMonitor, n int) {
	t.Helper()
	for i := range n {
		tm.src.Set("checkout", StatusUp, 20*time.Millisecond)
		tm.src.Set("search", StatusDown, 30*time.Millisecond)
		if i%2 == 0 {
			tm.src.Set("billing", StatusUp, 10*time.Millisecond)
		} else {
			tm.src.SetResult("billing", Result{Status: StatusUnavailable, Err: errors.New("no sample")})
		}
		tm.scrape(t)
		tm.clock.Advance(time.Minute)
	}
}

// dataOf is the data member of a GET answer.
func dataOf(t *testing.T, tm *testMonitor, path string) any {
	t.Helper()
	code, body := get(t, tm.h, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d %v", path, code, body)
	}
	return body["data"]
}

// After a save and a restart, every read endpoint answers what it answered
// before, at the same instant: history, counters, app histories, last
// states with their real last_check, and the interval set through the API.
func TestRestoreAcrossRestart(t *testing.T) {
	clock := newFakeClock(t0)
	st := &memStore{}
	before := newStoreMonitor(t, st, clock)
	runCycles(t, before, 7)
	if err := before.SetInterval(45 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := before.save(t.Context()); err != nil {
		t.Fatal(err)
	}

	clock.Advance(10 * time.Minute) // availmon is down for ten minutes
	after := newStoreMonitor(t, st, clock)
	for _, path := range []string{
		"/api/apps", "/api/apps/checkout", "/api/apps/billing", "/api/locations/Tel%20Aviv",
		"/api/metrics/summary", "/api/status/history?period=1h&resolution=1m",
		"/api/status/history?period=24h&resolution=1h", "/api/config",
	} {
		b, a := dataOf(t, before, path), dataOf(t, after, path)
		if path == "/api/config" {
			delete(b.(obj), "uptime") // of the process
			delete(a.(obj), "uptime")
		}
		if diff := cmp.Diff(b, a); diff != "" {
			t.Errorf("GET %s after the restart (-before +after):\n%s", path, diff)
		}
	}
	if after.Interval() != 45*time.Second {
		t.Errorf("interval after restart = %s, want the 45s set through the API", after.Interval())
	}
	// It is kept until set anew, not only through the first restart.
	if err := after.save(t.Context()); err != nil {
		t.Fatal(err)
	}
	if again := newStoreMonitor(t, st, clock); again.Interval() != 45*time.Second {
		t.Errorf("interval after a second restart = %s, want the 45s set through the API", again.Interval())
	}
	// The last known state, with its real last_check, not unavailable.
	app := dataOf(t, after, "/api/apps/checkout").(obj)
	if app["status"] != "up" || app["last_check"] != ts(t0.Add(6*time.Minute)) {
		t.Errorf("checkout after restart: status %v last_check %v, want up at %s", app["status"], app["last_check"], ts(t0.Add(6*time.Minute)))
	}
	// The minutes since the last cycle (6) and while availmon was down are
	// null buckets.
	points, _ := historyPoints(t, after, "1h", "1m")
	for _, p := range points[len(points)-11:] {
		if p.(obj)["overall_availability"] != nil {
			t.Errorf("a minute while availmon was down has availability %v, want null", p.(obj)["overall_availability"])
		}
	}
	if got := points[len(points)-12].(obj)["overall_availability"]; got == nil {
		t.Errorf("the last minute before the restart is null, want its availability")
	}
}

// The first cycle after a restart reports a status change against the
// restored state, not as every app's first check.
func TestRestoreThenCycle(t *testing.T) {
	clock := newFakeClock(t0)
	st := &memStore{}
	before := newStoreMonitor(t, st, clock)
	runCycles(t, before, 2) // billing: up, then unavailable
	if err := before.save(t.Context()); err != nil {
		t.Fatal(err)
	}
	after := newStoreMonitor(t, st, clock)
	from := after.events.cursor()
	after.src.Set("checkout", StatusUp, time.Millisecond)
	after.src.Set("search", StatusUp, time.Millisecond)
	after.src.SetResult("billing", Result{Status: StatusUnavailable, Err: errors.New("no sample")})
	after.scrape(t)
	evs, _, _, _ := after.events.read(from, nil)
	var changed []string
	for _, e := range evs {
		if e.Type == EventStatusUpdate {
			changed = append(changed, e.App+":"+string(e.PreviousStatus)+"->"+string(e.Status))
		}
	}
	if diff := cmp.Diff([]string{"search:down->up"}, changed); diff != "" {
		t.Errorf("status changes of the first cycle after a restart (-want +got):\n%s", diff)
	}
	hist := dataOf(t, after, "/api/apps/search").(obj)["history"].(arr)
	if len(hist) != 3 {
		t.Errorf("search has %d checks after one more cycle, want 3 (2 restored + 1)", len(hist))
	}
}

// A configuration changed between two runs keeps exactly what belongs to
// the apps and locations still there, by name: a removed app is dropped, a
// new one starts unchecked, an app moved to another location keeps its own
// history and counters, and each location keeps its own 24h counters.
func TestRestoreConfigChanged(t *testing.T) {
	clock := newFakeClock(t0)
	st := &memStore{}
	before := newStoreMonitor(t, st, clock)
	runCycles(t, before, 4)
	if err := before.save(t.Context()); err != nil {
		t.Fatal(err)
	}
	beforeBilling := dataOf(t, before, "/api/apps/billing").(obj)
	beforeSummary := dataOf(t, before, "/api/metrics/summary").(obj)

	after := newStoreMonitor(t, st, clock, func(o *Options) {
		o.Apps = []App{
			// checkout removed; search kept; billing moved to Tel Aviv; cart new
			{Name: "search", Location: "Tel Aviv", Metric: `up{job="search"}`},
			{Name: "billing", Location: "Tel Aviv", Metric: `up{job="billing"}`},
			{Name: "cart", Location: "Frankfurt", Metric: `up{job="cart"}`},
		}
	})
	if code, _ := get(t, after.h, "/api/apps/checkout"); code != http.StatusNotFound {
		t.Errorf("removed app: GET = %d, want 404", code)
	}
	cart := dataOf(t, after, "/api/apps/cart").(obj)
	if cart["status"] != "unavailable" || cart["last_check"] != nil || len(cart["history"].(arr)) != 0 {
		t.Errorf("new app: %v, want unavailable, never checked, no history", cart)
	}
	billing := dataOf(t, after, "/api/apps/billing").(obj)
	if billing["location"] != "Tel Aviv" {
		t.Errorf("moved app: location %v, want Tel Aviv", billing["location"])
	}
	if diff := cmp.Diff(beforeBilling["history"], billing["history"]); diff != "" {
		t.Errorf("moved app's history (-before +after):\n%s", diff)
	}
	summary := dataOf(t, after, "/api/metrics/summary").(obj)
	byName := func(s obj, list, name string) any {
		for _, e := range s[list].(arr) {
			if e.(obj)["name"] == name {
				return e
			}
		}
		return nil
	}
	for _, c := range []struct{ list, name string }{
		{"apps_summary", "search"}, {"apps_summary", "billing"}, {"locations_summary", "Tel Aviv"}, {"locations_summary", "Frankfurt"},
	} {
		want := byName(beforeSummary, c.list, c.name).(obj)
		got := byName(summary, c.list, c.name).(obj)
		key := "uptime_24h"
		if c.list == "locations_summary" {
			key = "availability"
		}
		if !cmp.Equal(want[key], got[key]) {
			t.Errorf("summary %s %s: %s %v, want %v as before", c.list, c.name, key, got[key], want[key])
		}
	}
	if got := byName(summary, "apps_summary", "cart").(obj)["uptime_24h"]; got != nil {
		t.Errorf("new app's uptime_24h = %v, want null", got)
	}
	if summary["total_requests"] != beforeSummary["total_requests"] {
		t.Errorf("system total_requests = %v, want %v: the system's 24h counters are its own", summary["total_requests"], beforeSummary["total_requests"])
	}
}

// A state the monitor cannot decode is set aside by the store; the monitor
// starts afresh rather than refusing to start or misreading it.
func TestRestoreUnreadable(t *testing.T) {
	clock := newFakeClock(t0)
	good := &memStore{}
	tm := newStoreMonitor(t, good, clock)
	runCycles(t, tm, 2)
	if err := tm.save(t.Context()); err != nil {
		t.Fatal(err)
	}
	future := append([]byte{statefile.Version + 1}, good.Data()[1:]...)
	for name, data := range map[string][]byte{
		"empty":          {},
		"truncated":      good.Data()[:len(good.Data())/2],
		"garbage":        []byte("this is not a state"),
		"future version": future,
		"trailing bytes": append(append([]byte(nil), good.Data()...), 0),
		// A well-formed file whose run-time interval the monitor would
		// refuse through the API.
		"interval out of range": encodeState(&statefile.State{SavedAt: t0, Interval: &statefile.Interval{D: MaxInterval + time.Second, Text: "x"}}),
	} {
		t.Run(name, func(t *testing.T) {
			st := memstore.New(data)
			fresh := newStoreMonitor(t, st, clock)
			if len(st.SetAside()) != 1 {
				t.Errorf("the store set aside %d states, want 1", len(st.SetAside()))
			}
			app := dataOf(t, fresh, "/api/apps/checkout").(obj)
			if app["status"] != "unavailable" || app["last_check"] != nil || len(app["history"].(arr)) != 0 {
				t.Errorf("after an unreadable state: %v, want a fresh start", app)
			}
		})
	}
}

// Run saves every SaveInterval, and once more when it returns, after its
// last cycle: what a SIGTERM'd binary knew is all kept.
func TestRunSaves(t *testing.T) {
	st := &memStore{}
	tm := newTestMonitor(t, func(o *Options) {
		o.Store, o.Interval, o.SaveInterval = st, time.Minute, time.Minute
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- tm.Run(ctx) }()
	wait := waitCtx(t)
	for i := range 2 {
		if err := tm.clock.BlockUntil(wait, 2); err != nil { // the cycle's timer and the saver's
			t.Fatalf("cycle %d did not end: %v", i+1, err)
		}
		tm.clock.Advance(time.Minute)
		if err := st.WaitSaves(wait, i+1); err != nil {
			t.Fatalf("periodic save %d: %v", i+1, err)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	s, err := decodeState(st.Data())
	if err != nil {
		t.Fatal(err)
	}
	cycles := tm.snap.Load().seq
	var checks int64
	for _, h := range s.System {
		checks += h.C.Up + h.C.Down + h.C.Unavailable
	}
	if want := int64(cycles) * 3; checks != want {
		t.Errorf("the last save holds %d checks; %d cycles of 3 apps ran", checks, cycles)
	}
}

// A signed request accepted before a restart is refused after it: the
// replay cache of an *hmac.Verifier is kept with the state.
func TestRestoreReplayCache(t *testing.T) {
	clock := newFakeClock(t0)
	st := &memStore{}
	newMon := func() *testMonitor {
		v, err := hmac.NewVerifier(hmac.VerifierOptions{Secrets: [][]byte{authSecret}, Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		return newStoreMonitor(t, st, clock, func(o *Options) { o.Authenticator = v })
	}
	req := func() *http.Request {
		return signedReq(t, http.MethodPost, "/api/scrape-interval", `{"interval":"60s"}`, authSecret, t0)
	}
	before := newMon()
	if rec := serve(before.h, req()); rec.Code != http.StatusOK {
		t.Fatalf("first POST = %d %s", rec.Code, rec.Body)
	}
	if err := before.save(t.Context()); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute) // still within the 5 minute window
	after := newMon()
	if rec := serve(after.h, req()); rec.Code != http.StatusForbidden {
		t.Errorf("the same signed POST after a restart = %d %s, want 403 (replayed)", rec.Code, rec.Body)
	}
	if other := signedReq(t, http.MethodPost, "/api/scrape-interval", `{"interval":"30s"}`, authSecret, clock.Now()); serve(after.h, other).Code != http.StatusOK {
		t.Errorf("a new signed POST after a restart is refused")
	}
}
