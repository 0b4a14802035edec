package availmon_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
)

// stepClock is a fake clock that moves one second on every reading, so every
// cycle has its own times without waiting for real time to pass.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// switchSource answers each app with the status last set for it (default up).
type switchSource struct {
	mu     sync.Mutex
	status map[string]availmon.Status
}

func (s *switchSource) set(app string, st availmon.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status[app] = st
}

func (s *switchSource) Check(ctx context.Context, app availmon.App) availmon.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.status[app.Name]
	if !ok {
		st = availmon.StatusUp
	}
	return availmon.Result{Status: st}
}

type wsFixture struct {
	m   *availmon.Monitor
	src *switchSource
	srv *httptest.Server
}

// newWSFixture serves a monitor of the given apps ("name@location") on a
// loopback httptest.Server; edit adjusts the options.
func newWSFixture(t *testing.T, apps []string, edit func(*availmon.Options)) *wsFixture {
	t.Helper()
	src := &switchSource{status: map[string]availmon.Status{}}
	opts := availmon.Options{
		Source: availmon.SourceFunc(src.Check),
		Clock:  &stepClock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)},
	}
	seen := map[string]bool{}
	for _, a := range apps {
		name, loc, _ := strings.Cut(a, "@")
		opts.Apps = append(opts.Apps, availmon.App{Name: name, Location: loc})
		if !seen[loc] {
			seen[loc] = true
			opts.Locations = append(opts.Locations, availmon.Location{Name: loc})
		}
	}
	if edit != nil {
		edit(&opts)
	}
	m, err := availmon.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler())
	t.Cleanup(srv.Close)
	return &wsFixture{m: m, src: src, srv: srv}
}

func (f *wsFixture) scrape(t *testing.T) {
	t.Helper()
	if err := f.m.Scrape(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (f *wsFixture) dial(t *testing.T, query string) *websocket.Conn {
	t.Helper()
	c, resp, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(f.srv.URL, "http")+"/api/ws"+query, nil)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial: %v (status %d)", err, status)
	}
	c.SetReadLimit(1 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return c
}

// msg is an /api/ws message with its data left generic, for cmp.Diff.
type msg struct {
	Type      string         `json:"type"`
	Timestamp string         `json:"timestamp"`
	Data      map[string]any `json:"data"`
}

func readMsg(t *testing.T, c *websocket.Conn) msg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	typ, b, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if typ != websocket.MessageText {
		t.Fatalf("message type %v, want text", typ)
	}
	var m msg
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	if _, err := time.Parse(time.RFC3339Nano, m.Timestamp); err != nil || !strings.HasSuffix(m.Timestamp, "Z") {
		t.Errorf("timestamp %q is not ISO 8601 UTC", m.Timestamp)
	}
	m.Timestamp = "" // checked above; the fake clock makes exact values noise
	return m
}

func readMsgs(t *testing.T, c *websocket.Conn, n int) []msg {
	t.Helper()
	out := make([]msg, n)
	for i := range out {
		out[i] = readMsg(t, c)
	}
	return out
}

func statusMsg(app, loc, status string, prev any) msg {
	return msg{Type: "status_update", Data: map[string]any{"app": app, "location": loc, "status": status, "previous_status": prev}}
}

func systemMsg(event, backend string) msg {
	d := map[string]any{"event": event}
	if backend != "" {
		d["backend"] = backend
	}
	return msg{Type: "system_event", Data: d}
}

// A client gets the current state, then each change of a cycle, then a
// config_update when the interval is changed over the API.
func TestWSSnapshotThenLive(t *testing.T) {
	f := newWSFixture(t, []string{"checkout@Tel Aviv", "search@Frankfurt", "billing@Tel Aviv"}, nil)
	f.src.set("search", availmon.StatusDown)
	f.scrape(t)

	c := f.dial(t, "")
	want := []msg{
		statusMsg("checkout", "Tel Aviv", "up", nil),
		statusMsg("search", "Frankfurt", "down", nil),
		statusMsg("billing", "Tel Aviv", "up", nil),
	}
	if diff := cmp.Diff(want, readMsgs(t, c, 3)); diff != "" {
		t.Fatalf("snapshot (-want +got):\n%s", diff)
	}

	f.src.set("billing", availmon.StatusDown)
	f.src.set("search", availmon.StatusUp)
	f.scrape(t)
	want = []msg{
		statusMsg("search", "Frankfurt", "up", "down"),
		statusMsg("billing", "Tel Aviv", "down", "up"),
	}
	if diff := cmp.Diff(want, readMsgs(t, c, 2)); diff != "" {
		t.Fatalf("after one cycle (-want +got):\n%s", diff)
	}

	res, err := http.Post(f.srv.URL+"/api/scrape-interval", "application/json", strings.NewReader(`{"interval": "60s"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST /api/scrape-interval: %d", res.StatusCode)
	}
	want = []msg{{Type: "config_update", Data: map[string]any{"scrape_interval": "60s", "previous_interval": "30s"}}}
	if diff := cmp.Diff(want, readMsgs(t, c, 1)); diff != "" {
		t.Fatalf("config update (-want +got):\n%s", diff)
	}
}

// A client connected before the first cycle sees every app's first check
// with a null previous_status, and the backend connecting.
func TestWSFirstCycle(t *testing.T) {
	f := newWSFixture(t, []string{"checkout@Tel Aviv", "search@Frankfurt"}, nil)
	c := f.dial(t, "")
	f.scrape(t)
	want := []msg{
		statusMsg("checkout", "Tel Aviv", "up", nil),
		statusMsg("search", "Frankfurt", "up", nil),
		systemMsg("backend_connected", "default"),
	}
	if diff := cmp.Diff(want, readMsgs(t, c, 3)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

// Filters narrow status updates (snapshot and live) to the named apps and
// locations; other events pass regardless.
func TestWSFilters(t *testing.T) {
	f := newWSFixture(t, []string{"checkout@Tel Aviv", "search@Frankfurt", "billing@Tel Aviv"}, nil)
	f.scrape(t)
	byLoc := f.dial(t, "?locations=Tel%20Aviv")
	byApp := f.dial(t, "?apps=search,billing&locations=Frankfurt")
	if diff := cmp.Diff([]msg{statusMsg("checkout", "Tel Aviv", "up", nil), statusMsg("billing", "Tel Aviv", "up", nil)}, readMsgs(t, byLoc, 2)); diff != "" {
		t.Errorf("locations snapshot (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]msg{statusMsg("search", "Frankfurt", "up", nil)}, readMsgs(t, byApp, 1)); diff != "" {
		t.Errorf("apps snapshot (-want +got):\n%s", diff)
	}
	for _, a := range []string{"checkout", "search", "billing"} {
		f.src.set(a, availmon.StatusDown)
	}
	f.scrape(t)
	if err := f.m.SetInterval(time.Minute); err != nil {
		t.Fatal(err)
	}
	config := msg{Type: "config_update", Data: map[string]any{"scrape_interval": "1m", "previous_interval": "30s"}}
	want := []msg{statusMsg("checkout", "Tel Aviv", "down", "up"), statusMsg("billing", "Tel Aviv", "down", "up"), config}
	if diff := cmp.Diff(want, readMsgs(t, byLoc, 3)); diff != "" {
		t.Errorf("locations live (-want +got):\n%s", diff)
	}
	want = []msg{statusMsg("search", "Frankfurt", "down", "up"), config}
	if diff := cmp.Diff(want, readMsgs(t, byApp, 2)); diff != "" {
		t.Errorf("apps live (-want +got):\n%s", diff)
	}
}

type envelopeError struct {
	Data any `json:"data"`
	Meta struct {
		Timestamp string `json:"timestamp"`
	} `json:"meta"`
	Error struct {
		Code      string   `json:"code"`
		Message   string   `json:"message"`
		Details   []string `json:"details"`
		RequestID string   `json:"request_id"`
	} `json:"error"`
}

func decodeEnvelope(t *testing.T, body io.Reader) envelopeError {
	t.Helper()
	var e envelopeError
	if err := json.NewDecoder(body).Decode(&e); err != nil {
		t.Fatalf("decode error envelope: %v", err)
	}
	if e.Data != nil || e.Meta.Timestamp == "" || e.Error.RequestID == "" || e.Error.Message == "" {
		t.Errorf("incomplete envelope: %+v", e)
	}
	return e
}

// Requests refused before the upgrade get the API's error envelope.
func TestWSRefusals(t *testing.T) {
	f := newWSFixture(t, []string{"checkout@Tel Aviv"}, func(o *availmon.Options) { o.MaxWSClients = 2 })
	wsURL := "ws" + strings.TrimPrefix(f.srv.URL, "http") + "/api/ws"

	for _, tc := range []struct {
		query, detail string
	}{
		{"?apps=checkout,nope", `apps: no application is named "nope"`},
		{"?locations=Mars", `locations: no location is named "Mars"`},
		{"?apps=", `apps: no application is named ""`},
	} {
		_, resp, err := websocket.Dial(context.Background(), wsURL+tc.query, nil)
		if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("%s: err %v, resp %v; want 400", tc.query, err, resp)
		}
		e := decodeEnvelope(t, resp.Body)
		if diff := cmp.Diff([]string{tc.detail}, e.Error.Details); e.Error.Code != "VALIDATION_ERROR" || diff != "" {
			t.Errorf("%s: code %s, details (-want +got):\n%s", tc.query, e.Error.Code, diff)
		}
	}

	res, err := http.Get(f.srv.URL + "/api/ws")
	if err != nil {
		t.Fatal(err)
	}
	if e := decodeEnvelope(t, res.Body); res.StatusCode != http.StatusBadRequest || e.Error.Code != "VALIDATION_ERROR" {
		t.Errorf("plain GET: %d %s, want 400 VALIDATION_ERROR", res.StatusCode, e.Error.Code)
	}
	res.Body.Close()

	a := f.dial(t, "")
	f.dial(t, "")
	_, resp, err := websocket.Dial(context.Background(), wsURL, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("third client: err %v, resp %v; want 503", err, resp)
	}
	if e := decodeEnvelope(t, resp.Body); e.Error.Code != "SERVICE_UNAVAILABLE" {
		t.Errorf("third client: code %s", e.Error.Code)
	}
	// A slot frees when a client leaves.
	a.Close(websocket.StatusNormalClosure, "")
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, _, err := websocket.Dial(context.Background(), wsURL, nil)
		if err == nil {
			c.CloseNow()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no slot after a client left: %v", err)
		}
		runtime.Gosched()
	}
}

// waitGoroutines polls until the goroutine count is back to at most n.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline
	}
}

// When Run's context ends every client gets a shutdown event and a normal
// close; new clients are refused; nothing is left running.
func TestWSShutdown(t *testing.T) {
	before := runtime.NumGoroutine()
	f := newWSFixture(t, []string{"checkout@Tel Aviv"}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.m.Run(ctx) }()

	clients := []*websocket.Conn{f.dial(t, ""), f.dial(t, "?apps=checkout")}
	for _, c := range clients {
		// Connected before or after the first cycle: either way the
		// client sees checkout up once, then the backend connect event
		// unless the snapshot already reflected it.
		for {
			m := readMsg(t, c)
			if m.Type == "status_update" {
				break
			}
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for i, c := range clients {
		var got msg
		for got.Type != "system_event" || got.Data["event"] != "shutdown" {
			got = readMsg(t, c)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, _, err := c.Read(ctx)
		cancel()
		var ce websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.StatusNormalClosure || ce.Reason != "shutdown" {
			t.Errorf("client %d: after shutdown read %v, want normal closure \"shutdown\"", i, err)
		}
	}
	_, resp, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(f.srv.URL, "http")+"/api/ws", nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("dial after shutdown: err %v, resp %v; want 503", err, resp)
	}
	for _, c := range clients {
		c.CloseNow()
	}
	f.srv.Close()
	http.DefaultClient.CloseIdleConnections()
	waitGoroutines(t, before)
}

// The handlers follow the request context: a server whose base context
// ends (how a program ties http.Server to its own lifetime; Shutdown alone
// does not touch hijacked connections) drops its WebSocket clients.
func TestWSServerContext(t *testing.T) {
	before := runtime.NumGoroutine()
	f := newWSFixture(t, []string{"checkout@Tel Aviv"}, nil)
	f.scrape(t)
	base, cancel := context.WithCancel(context.Background())
	srv := httptest.NewUnstartedServer(f.m.Handler())
	srv.Config.BaseContext = func(net.Listener) context.Context { return base }
	srv.Start()
	c, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http")+"/api/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	readMsg(t, c)
	cancel()
	ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	if _, _, err := c.Read(ctx); err == nil || ctx.Err() != nil {
		t.Fatalf("read after the server's context ended: %v, want the connection dropped", err)
	}
	c.CloseNow()
	srv.Close()
	f.srv.Close()
	waitGoroutines(t, before)
}

// smallBufListener gives accepted connections a small send buffer, so a
// client that stops reading blocks the server's writes after a few KiB
// rather than after the megabytes loopback would otherwise buffer.
type smallBufListener struct{ net.Listener }

func (l smallBufListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(4096)
	}
	return c, err
}

// A client that never reads is closed for falling behind, while the cycles
// complete without waiting on it and a reading client gets every event in
// order.
func TestWSSlowClient(t *testing.T) {
	const apps, cycles = 200, 20
	names := make([]string, apps)
	for i := range names {
		names[i] = fmt.Sprintf("app-%04d@L%d", i, i%4)
	}
	src := &switchSource{status: map[string]availmon.Status{}}
	opts := availmon.Options{
		Source:      availmon.SourceFunc(src.Check),
		Clock:       &stepClock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)},
		EventBuffer: 2 * apps,
		// Long enough that only falling behind the log can close the
		// slow client: a cycle that waited on its write would take
		// this long.
		WSWriteTimeout: time.Minute,
	}
	for i := range 4 {
		opts.Locations = append(opts.Locations, availmon.Location{Name: fmt.Sprintf("L%d", i)})
	}
	for _, n := range names {
		name, loc, _ := strings.Cut(n, "@")
		opts.Apps = append(opts.Apps, availmon.App{Name: name, Location: loc})
	}
	m, err := availmon.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(m.Handler())
	srv.Listener = smallBufListener{srv.Listener}
	srv.Start()
	defer srv.Close()
	if err := m.Scrape(context.Background()); err != nil {
		t.Fatal(err)
	}
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/api/ws"

	smallRead := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(4096)
		}
		return c, err
	}}}
	slow, _, err := websocket.Dial(context.Background(), url, &websocket.DialOptions{HTTPClient: smallRead})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.CloseNow()
	fast, _, err := websocket.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fast.CloseNow()
	if diff := cmp.Diff(statusMsg("app-0000", "L0", "up", nil), readMsg(t, fast)); diff != "" {
		t.Fatalf("first snapshot message (-want +got):\n%s", diff)
	}
	readMsgs(t, fast, apps-1)

	// The reader reports each complete cycle; the driver paces itself on
	// it so the reading client is never more than one cycle behind.
	cycleRead := make(chan error)
	go func() {
		n := 0
		for n < cycles*apps {
			_, b, err := fast.Read(context.Background())
			var m msg
			if err == nil {
				err = json.Unmarshal(b, &m)
			}
			wantApp := fmt.Sprintf("app-%04d", n%apps)
			wantStatus := "down"
			if (n/apps)%2 == 1 {
				wantStatus = "up"
			}
			if err == nil && (m.Data["app"] != wantApp || m.Data["status"] != wantStatus) {
				err = fmt.Errorf("message %d: %v, want %s %s", n, m.Data, wantApp, wantStatus)
			}
			if err != nil {
				cycleRead <- err
				return
			}
			n++
			if n%apps == 0 {
				cycleRead <- nil
			}
		}
	}()

	var slowest time.Duration
	for c := range cycles {
		st := availmon.StatusDown
		if c%2 == 1 {
			st = availmon.StatusUp
		}
		for _, n := range names {
			name, _, _ := strings.Cut(n, "@")
			src.set(name, st)
		}
		t0 := time.Now()
		if err := m.Scrape(context.Background()); err != nil {
			t.Fatal(err)
		}
		slowest = max(slowest, time.Since(t0))
		if err := <-cycleRead; err != nil {
			t.Fatalf("reading client, cycle %d: %v", c, err)
		}
	}
	// A cycle that had waited on the blocked client would have taken the
	// write timeout.
	if slowest >= opts.WSWriteTimeout/2 {
		t.Errorf("slowest cycle took %v", slowest)
	}
	t.Logf("%d cycles of %d changes; slowest cycle %v; reading client got all %d events", cycles, apps, slowest, cycles*apps)

	// The slow client now drains what the sockets held, then finds the
	// close frame that says why.
	n := 0
	for {
		_, _, err := slow.Read(context.Background())
		if err != nil {
			var ce websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != websocket.StatusPolicyViolation || ce.Reason != "client too slow: events lost" {
				t.Fatalf("slow client ended with %v, want policy violation \"client too slow: events lost\"", err)
			}
			break
		}
		n++
	}
	if n >= apps+cycles*apps {
		t.Fatalf("slow client got all %d messages: it was never behind", n)
	}
	t.Logf("slow client got %d of %d messages before it was closed", n, apps+cycles*apps)
}

// wsBurst connects clients before the first cycle, then runs one cycle in
// which every one of apps apps changes (its first check), and returns how
// long it took until every client had every event, in order.
func wsBurst(tb testing.TB, clients, apps int) (time.Duration, int, burstMem) {
	tb.Helper()
	names := make([]string, apps)
	for i := range names {
		names[i] = fmt.Sprintf("app-%04d@L%d", i, i%10)
	}
	src := &switchSource{status: map[string]availmon.Status{}}
	opts := availmon.Options{
		Source:       availmon.SourceFunc(src.Check),
		Clock:        &stepClock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)},
		MaxWSClients: clients,
		MaxParallel:  64,
	}
	for i := range 10 {
		opts.Locations = append(opts.Locations, availmon.Location{Name: fmt.Sprintf("L%d", i)})
	}
	for _, n := range names {
		name, loc, _ := strings.Cut(n, "@")
		opts.Apps = append(opts.Apps, availmon.App{Name: name, Location: loc})
	}
	m, err := availmon.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/api/ws"

	conns := make([]*websocket.Conn, clients)
	for i := range conns {
		c, _, err := websocket.Dial(context.Background(), url, nil)
		if err != nil {
			tb.Fatalf("client %d: %v", i, err)
		}
		defer c.CloseNow()
		conns[i] = c
	}

	var wg sync.WaitGroup
	var failed atomic.Int64
	var firstErr sync.Once
	var ready sync.WaitGroup
	ready.Add(clients)
	for i, c := range conns {
		wg.Go(func() {
			ready.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			for n := range apps {
				_, b, err := c.Read(ctx)
				var got struct {
					Type string `json:"type"`
					Data struct {
						App string `json:"app"`
					} `json:"data"`
				}
				if err == nil {
					err = json.Unmarshal(b, &got)
				}
				if want := fmt.Sprintf("app-%04d", n); err == nil && (got.Type != "status_update" || got.Data.App != want) {
					err = fmt.Errorf("message %d: %s, want status_update of %s", n, b, want)
				}
				if err != nil {
					failed.Add(1)
					firstErr.Do(func() { tb.Errorf("client %d: %v", i, err) })
					return
				}
			}
		})
	}
	ready.Wait()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	start := time.Now()
	if err := m.Scrape(context.Background()); err != nil {
		tb.Fatal(err)
	}
	goroutines := runtime.NumGoroutine()
	wg.Wait()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&ms1)
	if n := failed.Load(); n > 0 {
		tb.Fatalf("%d of %d clients did not get every event in order", n, clients)
	}
	return elapsed, goroutines, burstMem{alloc: ms1.TotalAlloc - ms0.TotalAlloc, sysBefore: ms0.Sys, sysAfter: ms1.Sys}
}

// burstMem is what a burst cost in memory, clients' and server's together.
type burstMem struct {
	alloc               uint64 // bytes allocated during the burst
	sysBefore, sysAfter uint64 // bytes obtained from the OS
}

func (b burstMem) String() string {
	return fmt.Sprintf("%.0f MiB allocated, memory from the OS %.0f -> %.0f MiB",
		float64(b.alloc)/(1<<20), float64(b.sysBefore)/(1<<20), float64(b.sysAfter)/(1<<20))
}

// 1,000 clients each get all 1,000 changes of a burst, in order. With
// -short or under the race detector, 100 clients (same code paths; the
// race detector makes the full million messages take minutes on 2 cores).
func TestWSThousandClients(t *testing.T) {
	clients := 1000
	if testing.Short() || raceEnabled {
		clients = 100
	}
	elapsed, g, mem := wsBurst(t, clients, 1000)
	t.Logf("%d clients x 1000 events: delivered in %v; %d goroutines during the burst; %v",
		clients, elapsed, g, mem)
}

func BenchmarkWSBurst(b *testing.B) {
	for b.Loop() {
		elapsed, g, mem := wsBurst(b, 1000, 1000)
		b.ReportMetric(elapsed.Seconds(), "s/burst")
		b.ReportMetric(float64(g), "goroutines")
		b.ReportMetric(float64(mem.alloc)/(1<<20), "MiB-alloc/burst")
		b.ReportMetric(float64(mem.sysAfter)/(1<<20), "MiB-sys")
	}
}

// The server pings idle clients; one that answers stays connected.
func TestWSPing(t *testing.T) {
	f := newWSFixture(t, []string{"checkout@Tel Aviv"}, func(o *availmon.Options) { o.WSPingInterval = 10 * time.Millisecond })
	pings := make(chan struct{}, 100)
	c, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(f.srv.URL, "http")+"/api/ws", &websocket.DialOptions{
		OnPingReceived: func(context.Context, []byte) bool {
			select {
			case pings <- struct{}{}:
			default:
			}
			return true // answer with a pong
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	// Reading in the background answers pings; nothing else arrives.
	readErr := make(chan error, 1)
	go func() {
		_, b, err := c.Read(context.Background())
		if err == nil {
			err = fmt.Errorf("unexpected message %s", b)
		}
		readErr <- err
	}()
	timeout := time.After(10 * time.Second)
	for range 3 {
		select {
		case <-pings:
		case err := <-readErr:
			t.Fatalf("connection ended: %v", err)
		case <-timeout:
			t.Fatal("fewer than 3 pings in 10s")
		}
	}
	// Still connected: a cycle's events arrive after the pings.
	f.scrape(t)
	if err := <-readErr; !strings.Contains(err.Error(), `"status_update"`) {
		t.Fatalf("after pings: %v, want the first check's status_update", err)
	}
}
