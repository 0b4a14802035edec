package availmon

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/fakeclock"
)

// t0 is the fake clock's starting instant in most tests: a whole minute, so
// that bucket edges are easy to reason about.
var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// ts formats t as the API writes timestamps.
func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// fakeClock is availmontest.Clock for the tests inside the package, which
// cannot import availmontest (it imports availmon): the same fake clock,
// with NewTimer returning this package's Timer.
type fakeClock struct{ *fakeclock.Clock }

var (
	_ TimerClock   = (*fakeClock)(nil)
	_ elapsedClock = (*fakeClock)(nil)
)

func newFakeClock(t time.Time) *fakeClock { return &fakeClock{fakeclock.New(t)} }

func (c *fakeClock) NewTimer(d time.Duration) Timer { return c.Clock.NewTimer(d) }

// fakeSource answers with whatever the test set per app; an app it knows
// nothing about is unavailable. With err set, the whole backend fails.
type fakeSource struct {
	mu      sync.Mutex
	results map[string]Result
	err     error
	calls   int
	// check, when set, replaces the normal answer (for misbehaviour).
	check func(ctx context.Context, apps []App) ([]Result, error)
}

var _ Source = (*fakeSource)(nil)

func newFakeSource() *fakeSource { return &fakeSource{results: map[string]Result{}} }

func (s *fakeSource) Set(app string, st Status, rt time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results[app] = Result{Status: st, ResponseTime: rt}
}

func (s *fakeSource) SetResult(app string, r Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results[app] = r
}

func (s *fakeSource) SetErr(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

func (s *fakeSource) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func (s *fakeSource) Check(ctx context.Context, apps []App) ([]Result, error) {
	s.mu.Lock()
	s.calls++
	check, err := s.check, s.err
	out := make([]Result, len(apps))
	for i, a := range apps {
		r, ok := s.results[a.Name]
		if !ok {
			r = Result{Status: StatusUnavailable}
		}
		out[i] = r
	}
	s.mu.Unlock()
	if check != nil {
		return check(ctx, apps)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// testMonitor is a Monitor with its fake clock, fake source and handler.
type testMonitor struct {
	*Monitor
	clock *fakeClock
	src   *fakeSource
	h     http.Handler
}

// Locations and apps of the standard fixture.
var (
	telAviv   = Location{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818}
	frankfurt = Location{Name: "Frankfurt", Latitude: 50.1109, Longitude: 8.6821}
)

const testPromURL = "http://127.0.0.1:9090"

// newTestMonitor builds a Monitor with two locations (Tel Aviv: checkout and
// search; Frankfurt: billing), one backend "main" backed by a fake source,
// a fake clock at t0, and whatever the option functions change.
// openWrites opts a test monitor without an Authenticator in to
// unauthenticated writes, for tests about what a write does rather than who
// may send it.
func openWrites(o *Options) { o.AllowUnauthenticatedWrites = true }

func newTestMonitor(t testing.TB, opts ...func(*Options)) *testMonitor {
	t.Helper()
	clock := newFakeClock(t0)
	src := newFakeSource()
	o := Options{
		Locations: []Location{telAviv, frankfurt},
		Apps: []App{
			{Name: "checkout", Location: "Tel Aviv", Metric: `up{job="checkout"}`},
			{Name: "search", Location: "Tel Aviv", Metric: `up{job="search"}`},
			{Name: "billing", Location: "Frankfurt", Metric: `up{job="billing"}`},
		},
		Backends: []Backend{{Name: "main", URL: testPromURL, Source: src, BatchSize: 10}},
		Version:  "1.2.3",
		Clock:    clock,
	}
	for _, f := range opts {
		f(&o)
	}
	m, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return &testMonitor{Monitor: m, clock: clock, src: src, h: m.Handler()}
}

// scrape runs one cycle and fails the test if it does not complete.
func (tm *testMonitor) scrape(t testing.TB) {
	t.Helper()
	if err := tm.Scrape(context.Background()); err != nil {
		t.Fatalf("Scrape: %v", err)
	}
}

// startRun runs the monitor in the background until the test ends, and
// waits for its first cycle; /health answers 200 only while Run runs.
func (tm *testMonitor) startRun(t testing.TB) {
	t.Helper()
	before := tm.snap.Load().seq
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tm.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	waitFor(t, "the first cycle of Run", func() bool { return tm.snap.Load().seq > before })
}

// waitCtx bounds a wait for what the monitor must do by itself, so that a
// monitor that does not fails the test rather than hanging it; the wait
// ends as soon as it is done.
func waitCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitFor polls cond until it holds or a deadline passes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond) // polling interval, not a wait for an outcome
	}
}

// do sends one request through h.
func do(t testing.TB, h http.Handler, method, target, body string, header http.Header) *httptest.ResponseRecorder {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = bytes.NewReader([]byte(body))
	}
	req := httptest.NewRequest(method, target, r)
	for k, vs := range header {
		req.Header[k] = vs
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// decode parses a response body as one JSON object, failing the test if it
// is anything else or has trailing data.
func decode(t testing.TB, body []byte) map[string]any {
	t.Helper()
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("response is not a JSON object: %v\n%s", err, body)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("response has data after the JSON object:\n%s", body)
	}
	if v == nil {
		t.Fatalf("response is JSON null")
	}
	return v
}

// get sends GET path through h and returns the status and the decoded body.
func get(t testing.TB, h http.Handler, path string) (int, map[string]any) {
	t.Helper()
	rec := do(t, h, http.MethodGet, path, "", nil)
	if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("GET %s: Content-Type %q, want application/json; charset=utf-8", path, ct)
	}
	return rec.Code, decode(t, rec.Body.Bytes())
}

// sortedKeys lists the keys of a JSON object, for exact key set checks.
func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// read is readEntries without the encoded messages, for tests that look at
// the events themselves.
func (l *eventLog) read(from uint64, dst []Event) (evs []Event, next uint64, lost bool, wait <-chan struct{}) {
	entries, next, lost, wait := l.readEntries(from, nil)
	for _, e := range entries {
		dst = append(dst, e.event())
	}
	return dst, next, lost, wait
}
