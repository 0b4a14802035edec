package availmon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// recorder is a Source for synctest bubbles: it notes when each call
// starts (as an offset from the bubble's start), how many calls are in
// flight at once, and answers up after delay, or when ctx ends, whichever
// comes first.
type recorder struct {
	start    time.Time
	delay    time.Duration
	mu       sync.Mutex
	starts   []time.Duration
	inFlight int
	maxIn    int
	// ignoreCtx answers after delay even past ctx's end, as a misbehaving
	// Source may.
	ignoreCtx bool
}

func newRecorder(delay time.Duration) *recorder {
	return &recorder{start: time.Now(), delay: delay}
}

func (r *recorder) Check(ctx context.Context, apps []App) ([]Result, error) {
	r.mu.Lock()
	r.starts = append(r.starts, time.Since(r.start))
	r.inFlight++
	r.maxIn = max(r.maxIn, r.inFlight)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.inFlight--
		r.mu.Unlock()
	}()
	if r.delay > 0 {
		t := time.NewTimer(r.delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			if r.ignoreCtx {
				<-t.C
				break
			}
			return nil, ctx.Err()
		}
	}
	out := make([]Result, len(apps))
	for i := range out {
		out[i] = Result{Status: StatusUp, ResponseTime: r.delay}
	}
	return out, nil
}

func (r *recorder) Starts() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.starts...)
}

// bubbleMonitor makes a one-app Monitor on the bubble's clock.
func bubbleMonitor(t *testing.T, src Source, interval, timeout time.Duration) *Monitor {
	t.Helper()
	m, err := New(Options{
		Locations: []Location{telAviv},
		Apps:      []App{{Name: "checkout", Location: "Tel Aviv"}},
		Source:    src,
		Interval:  interval,
		Timeout:   timeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// runInBubble starts Run and returns a function that cancels it and
// checks it returned nil.
func runInBubble(t *testing.T, m *Monitor) (stop func()) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run returned %v, want nil", err)
		}
	}
}

func secs(ss ...float64) []time.Duration {
	out := make([]time.Duration, len(ss))
	for i, s := range ss {
		out[i] = time.Duration(s * float64(time.Second))
	}
	return out
}

// Run checks at once and then every interval. Any goroutine Run leaves
// behind would make synctest.Test fail when the bubble ends.
func TestRunCyclesAtInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newRecorder(0)
		m := bubbleMonitor(t, src, 10*time.Second, 0)
		stop := runInBubble(t, m)
		time.Sleep(35 * time.Second)
		synctest.Wait()
		if diff := cmp.Diff(secs(0, 10, 20, 30), src.Starts()); diff != "" {
			t.Errorf("cycle starts (-want +got):\n%s", diff)
		}
		if s := m.snap.Load(); s.seq != 4 {
			t.Errorf("%d cycles published, want 4", s.seq)
		}
		stop()
	})
}

// SetInterval applies from the next cycle: it reschedules the next cycle
// from the start of the last one, and never cuts short the cycle in
// progress.
func TestRunSetInterval(t *testing.T) {
	tests := []struct {
		name     string
		delay    time.Duration // how long each check takes
		setAt    time.Duration
		interval time.Duration
		until    time.Duration
		want     []time.Duration
	}{
		{"longer", 0, 3 * time.Second, 20 * time.Second, 45 * time.Second, secs(0, 20, 40)},
		{"shorter, next due already", 0, 3 * time.Second, 2 * time.Second, 8 * time.Second, secs(0, 3, 5, 7)},
		{"shorter, next not due yet", 0, 3 * time.Second, 5 * time.Second, 16 * time.Second, secs(0, 5, 10, 15)},
		{"during a cycle", 4 * time.Second, 2 * time.Second, 30 * time.Second, 65 * time.Second, secs(0, 30, 60)},
		// The next cycle starts as soon as the one in progress ends; it then
		// runs with a 3s timeout (never longer than the interval).
		{"during a cycle, shorter", 4 * time.Second, 2 * time.Second, 3 * time.Second, 6 * time.Second, secs(0, 4)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := newRecorder(tt.delay)
				m := bubbleMonitor(t, src, 10*time.Second, 9*time.Second)
				stop := runInBubble(t, m)
				time.Sleep(tt.setAt)
				if err := m.SetInterval(tt.interval); err != nil {
					t.Fatal(err)
				}
				time.Sleep(tt.until - tt.setAt)
				synctest.Wait()
				if diff := cmp.Diff(tt.want, src.Starts()); diff != "" {
					t.Errorf("cycle starts (-want +got):\n%s", diff)
				}
				// The cycle in progress when the interval changed finished
				// normally: its app is up, not cut short.
				if st := m.snap.Load().apps[0].status(); st != StatusUp {
					t.Errorf("app status %s, want up", st)
				}
				stop()
			})
		})
	}
}

// A cycle that takes longer than the interval delays the next one rather
// than overlapping it.
func TestRunSlowCycleNeverOverlaps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The timeout is never longer than the interval, so only a Source
		// that ignores ctx makes a cycle longer than the interval.
		src := newRecorder(2500 * time.Millisecond)
		src.ignoreCtx = true
		m := bubbleMonitor(t, src, time.Second, time.Second)
		stop := runInBubble(t, m)
		time.Sleep(9 * time.Second)
		synctest.Wait()
		if diff := cmp.Diff(secs(0, 2.5, 5, 7.5), src.Starts()); diff != "" {
			t.Errorf("cycle starts (-want +got):\n%s", diff)
		}
		if src.maxIn != 1 {
			t.Errorf("%d checks in flight at once, want 1", src.maxIn)
		}
		stop()
	})
}

// A second Run while one runs is refused; once the first returns, Run can
// be called again.
func TestRunAlreadyRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newRecorder(0)
		m := bubbleMonitor(t, src, 10*time.Second, 0)
		stop := runInBubble(t, m)
		synctest.Wait()
		if err := m.Run(t.Context()); !errors.Is(err, ErrAlreadyRunning) {
			t.Errorf("second Run: %v, want ErrAlreadyRunning", err)
		}
		stop()
		if got := len(src.Starts()); got != 1 {
			t.Errorf("%d cycles, want 1", got)
		}
		stop = runInBubble(t, m)
		synctest.Wait()
		if got := len(src.Starts()); got != 2 {
			t.Errorf("restarted Run made %d cycles in total, want 2", got)
		}
		stop()
	})
}

// Cancelling ctx during a cycle stops the cycle at once: Run returns nil,
// nothing of the cut cycle is published, a shutdown event is recorded and
// /health reports unhealthy.
func TestRunCancelDuringCycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newRecorder(time.Hour) // until ctx ends
		m := bubbleMonitor(t, src, 30*time.Second, 30*time.Second)
		h := m.Handler()
		start := time.Now()
		stop := runInBubble(t, m)
		time.Sleep(time.Second)
		if code, body := get(t, h, "/health"); code != http.StatusOK || body["status"] != "healthy" {
			t.Errorf("/health while running: %d %v", code, body)
		}
		stop()
		if d := time.Since(start); d != time.Second {
			t.Errorf("Run returned %s after start, want 1s (at cancel)", d)
		}
		if s := m.snap.Load(); s.seq != 0 {
			t.Errorf("the cut cycle was published (seq %d)", s.seq)
		}
		evs, _, _, _ := m.events.read(0, nil)
		if len(evs) != 1 || evs[0].Type != EventSystem || evs[0].Name != "shutdown" {
			t.Errorf("events %+v, want one shutdown system_event", evs)
		}
		if code, body := get(t, h, "/health"); code != http.StatusServiceUnavailable || body["status"] != "unhealthy" {
			t.Errorf("/health after Run returned: %d %v, want 503 unhealthy", code, body["status"])
		}
	})
}

// A check slower than the cycle timeout makes its apps unavailable; the
// cycle completes at the deadline, and the apps of fast batches keep their
// answers.
func TestScrapeTimeout(t *testing.T) {
	tests := []struct {
		name  string
		check func(ctx context.Context, apps []App) ([]Result, error)
	}{
		{"returns the context's error", func(ctx context.Context, apps []App) ([]Result, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}},
		{"answers up after the deadline", func(ctx context.Context, apps []App) ([]Result, error) {
			<-ctx.Done()
			time.Sleep(time.Second) // answers late anyway
			out := make([]Result, len(apps))
			for i := range out {
				out[i] = Result{Status: StatusUp}
			}
			return out, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				slow := &fakeSource{check: tt.check}
				fast := newRecorder(time.Second)
				m, err := New(Options{
					Locations: []Location{telAviv},
					Apps: []App{
						{Name: "slow", Location: "Tel Aviv", Backend: "slow"},
						{Name: "fast", Location: "Tel Aviv", Backend: "fast"},
					},
					Backends: []Backend{{Name: "slow", Source: slow}, {Name: "fast", Source: fast}},
					Interval: 10 * time.Second,
					Timeout:  5 * time.Second,
				})
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				if err := m.Scrape(t.Context()); err != nil {
					t.Fatalf("Scrape: %v", err)
				}
				if d := time.Since(start); d > 6*time.Second {
					t.Errorf("the cycle took %s, want about the 5s timeout", d)
				}
				s := m.snap.Load()
				got := []Status{s.apps[0].status(), s.apps[1].status()}
				if diff := cmp.Diff([]Status{StatusUnavailable, StatusUp}, got); diff != "" {
					t.Errorf("slow, fast (-want +got):\n%s", diff)
				}
				if !strings.Contains(s.errs[0], "deadline") && !strings.Contains(s.errs[0], "timed out") {
					t.Errorf("slow app's error %q does not say it timed out", s.errs[0])
				}
				if s.connectivity != connDegraded {
					t.Errorf("connectivity %s, want degraded", s.connectivity)
				}
			})
		})
	}
}

// A cycle stuck past three intervals plus the timeout (a Source that
// ignores ctx) makes /health 503 and system_status unhealthy; once the loop
// moves again, both recover.
func TestStalledLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var stuck atomic.Bool
		src := &fakeSource{check: func(ctx context.Context, apps []App) ([]Result, error) {
			if stuck.Load() {
				time.Sleep(100 * time.Second) // ignores ctx
			}
			return []Result{{Status: StatusUp}}, nil
		}}
		m := bubbleMonitor(t, src, 10*time.Second, 5*time.Second)
		h := m.Handler()
		stop := runInBubble(t, m)
		synctest.Wait()
		stuck.Store(true)
		check := func(at string, wantCode int, wantHealth, wantSystem string) {
			t.Helper()
			code, body := get(t, h, "/health")
			_, st := get(t, h, "/api/status")
			got := []any{code, body["status"], st["data"].(obj)["system_status"]}
			if diff := cmp.Diff([]any{wantCode, wantHealth, wantSystem}, got); diff != "" {
				t.Errorf("%s: /health status, body status, system_status (-want +got):\n%s", at, diff)
			}
		}
		time.Sleep(34 * time.Second) // the stuck cycle started at 10s
		check("34s", 200, "healthy", "healthy")
		time.Sleep(2 * time.Second) // 36s > 3*10s + 5s since the last progress
		check("36s", 503, "unhealthy", "unhealthy")
		stuck.Store(false)
		time.Sleep(80 * time.Second) // the stuck call returns at 110s
		synctest.Wait()
		check("116s", 200, "healthy", "healthy")
		stop()
	})
}

// Outside a bubble: after Run returns, the goroutine count is back where it
// was, with many checks in parallel.
func TestRunLeavesNoGoroutine(t *testing.T) {
	var apps []App
	for i := range 200 {
		apps = append(apps, App{Name: fmt.Sprintf("app%d", i), Location: "Tel Aviv"})
	}
	src := newFakeSource()
	for _, a := range apps {
		src.Set(a.Name, StatusUp, time.Millisecond)
	}
	m, err := New(Options{
		Locations: []Location{telAviv}, Apps: apps,
		Backends:    []Backend{{Name: "main", Source: src, BatchSize: 3}},
		MaxParallel: 16, Interval: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	waitFor(t, "two cycles", func() bool { return m.snap.Load().seq >= 2 })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	var now int
	waitFor(t, "the goroutine count to return", func() bool {
		now = runtime.NumGoroutine()
		return now <= before
	})
	if m.run.running.Load() {
		t.Error("the monitor says it is still running")
	}
}

// Many concurrent GETs on every endpoint while cycles run, the clock moves
// and the interval changes: every answer is 200 and a JSON object. Run
// with -race.
func TestConcurrentReadsDuringCycles(t *testing.T) {
	var apps []App
	locs := []Location{telAviv, frankfurt}
	for i := range 50 {
		apps = append(apps, App{Name: fmt.Sprintf("app%d", i), Location: locs[i%2].Name})
	}
	tm := newTestMonitor(t, openWrites, func(o *Options) {
		o.Apps = apps
		o.Interval = 10 * time.Second
	})
	tm.startRun(t)

	paths := []string{
		"/health", "/api/apps", "/api/apps/app7", "/api/locations", "/api/locations/Tel%20Aviv",
		"/api/locations/Frankfurt", "/api/config", "/api/status", "/api/status/history",
		"/api/status/history?period=30d&resolution=1h", "/api/status/history?period=1h&resolution=1m",
		"/api/metrics/summary",
	}
	ctx, cancel := context.WithCancel(context.Background())
	var writers sync.WaitGroup
	writers.Go(func() { // cycles, each with new states, on a moving clock
		for i := 0; ctx.Err() == nil; i++ {
			for j, a := range apps {
				st := []Status{StatusUp, StatusDown, StatusUnavailable}[(i+j)%3]
				tm.src.Set(a.Name, st, time.Duration(j)*time.Millisecond)
			}
			tm.clock.Advance(time.Second)
			if err := tm.Scrape(ctx); err != nil && ctx.Err() == nil {
				t.Errorf("Scrape: %v", err)
			}
		}
	})
	writers.Go(func() { // the interval changes, directly and through the API
		for i := 0; ctx.Err() == nil; i++ {
			if i%2 == 0 {
				if err := tm.SetInterval(time.Duration(10+i%7) * time.Second); err != nil {
					t.Errorf("SetInterval: %v", err)
				}
				continue
			}
			rec := do(t, tm.h, http.MethodPost, "/api/scrape-interval", fmt.Sprintf(`{"interval":"%ds"}`, 10+i%11), nil)
			if rec.Code != http.StatusOK {
				t.Errorf("POST: %d %s", rec.Code, rec.Body)
			}
		}
	})

	var readers sync.WaitGroup
	var requests atomic.Int64
	for r := range 8 {
		readers.Go(func() {
			for i := range 60 {
				path := paths[(r+i)%len(paths)]
				rec := do(t, tm.h, http.MethodGet, path, "", nil)
				requests.Add(1)
				if rec.Code != http.StatusOK {
					t.Errorf("GET %s: %d %s", path, rec.Code, rec.Body)
					continue
				}
				body := decode(t, rec.Body.Bytes())
				if path == "/api/apps/app7" {
					checkHistoryMatchesApp(t, body["data"].(obj))
				}
			}
		})
	}
	readers.Wait()
	cancel()
	writers.Wait()
	if got := requests.Load(); got != 8*60 {
		t.Errorf("%d requests made, want %d", got, 8*60)
	}
	if tm.snap.Load().seq < 2 {
		t.Errorf("only %d cycles ran during the reads", tm.snap.Load().seq)
	}
}

// checkHistoryMatchesApp asserts that an app's answer is one view: its last
// history entry is the check its status and last_check come from.
func checkHistoryMatchesApp(t *testing.T, app obj) {
	t.Helper()
	h := app["history"].(arr)
	if len(h) == 0 {
		if app["last_check"] != nil {
			t.Errorf("app checked at %v has no history", app["last_check"])
		}
		return
	}
	last := h[len(h)-1].(obj)
	if last["timestamp"] != app["last_check"] || last["status"] != app["status"] {
		t.Errorf("app says %v at %v, its last history entry %v at %v", app["status"], app["last_check"], last["status"], last["timestamp"])
	}
}

// A batch that is a run of the plan's apps is handed to the source as the
// plan's own list, capped so that an append cannot reach the next app; any
// other batch is a copy.
func TestBatchApps(t *testing.T) {
	p := &plan{apps: []App{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}}
	run := batchApps(p, []int{1, 2})
	if len(run) != 2 || cap(run) != 2 || &run[0] != &p.apps[1] {
		t.Errorf("a run: len %d cap %d, not the plan's own apps", len(run), cap(run))
	}
	gap := batchApps(p, []int{0, 2, 3})
	if len(gap) != 3 || gap[0].Name != "a" || gap[1].Name != "c" || gap[2].Name != "d" || &gap[0] == &p.apps[0] {
		t.Errorf("a batch with a gap: %+v", gap)
	}
	if one := batchApps(p, []int{3}); len(one) != 1 || one[0].Name != "d" {
		t.Errorf("one app: %+v", one)
	}
}

// What a cycle records of a batch's answer is the same whether the batch
// is a run of the plan's apps (kept as the Source returned it) or not
// (copied per app): a malformed result corrected, a failed batch's apps
// unavailable with its error.
func TestBatchResultsRunOrScattered(t *testing.T) {
	answer := func(ctx context.Context, apps []App) ([]Result, error) {
		out := make([]Result, len(apps))
		for i, a := range apps {
			switch a.Name {
			case "checkout":
				out[i] = Result{Status: "UP"}
			case "billing":
				out[i] = Result{Status: StatusDown, ResponseTime: -time.Second}
			default:
				out[i] = Result{Status: StatusUnavailable}
			}
		}
		return out, nil
	}
	tests := []struct {
		name     string
		backends [3]string // of checkout, search, billing
	}{
		{"runs", [3]string{"a", "a", "b"}},
		{"scattered", [3]string{"a", "b", "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := newFakeSource(), newFakeSource()
			a.check = answer
			b.SetErr(errors.New("connection refused"))
			tm := newTestMonitor(t, func(o *Options) {
				o.Backends = []Backend{
					{Name: "a", Source: a, BatchSize: 10},
					{Name: "b", Source: b, BatchSize: 10},
				}
				for i := range o.Apps {
					o.Apps[i].Backend = tt.backends[i]
				}
			})
			if got := tm.plan.batchRuns; got != (tt.name == "runs") {
				t.Fatalf("batchRuns %v for %s", got, tt.name)
			}
			tm.scrape(t)
			want := map[string][2]string{
				"checkout": {"unavailable", `source returned invalid status "UP"`},
				"billing":  {"down", ""},
				"search":   {"unavailable", "no answer"},
			}
			for i, be := range tt.backends {
				if be == "b" {
					want[tm.plan.apps[i].Name] = [2]string{"unavailable", "connection refused"}
				}
			}
			for name, w := range want {
				_, app := get(t, tm.h, "/api/apps/"+name)
				d := app["data"].(obj)
				errText, _ := d["error"].(string)
				if d["status"] != w[0] || errText != w[1] || d["response_time"] != 0.0 {
					t.Errorf("%s: %v %q rt %v, want %s %q rt 0", name, d["status"], errText, d["response_time"], w[0], w[1])
				}
			}
		})
	}
}
