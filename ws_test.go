package availmon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/availmon/availmon/hmac"
	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"
)

// wsURL is the ws:// address of path on srv.
func wsURL(srv *httptest.Server, path string) string {
	return "ws" + strings.TrimPrefix(srv.URL, "http") + path
}

func dialWS(t testing.TB, srv *httptest.Server, path string, header http.Header) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, wsURL(srv, path), &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial %s: %v (status %d)", path, err, status)
	}
	c.SetReadLimit(1 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return c
}

// withHeader is h with key set to value ("" removes it).
func withHeader(h http.Header, key, value string) http.Header {
	h = h.Clone()
	if value == "" {
		h.Del(key)
	} else {
		h.Set(key, value)
	}
	return h
}

// readAnyMsg reads one message as a generic JSON object.
func readAnyMsg(t testing.TB, c *websocket.Conn) map[string]any {
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
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("message is not a JSON object: %v: %s", err, b)
	}
	return v
}

// readMsg reads the next message other than an outage event, as a generic
// JSON object: the tests of the other messages follow apps that go up and
// down, whose outages TestOutageEvents tests.
func readMsg(t testing.TB, c *websocket.Conn) map[string]any {
	t.Helper()
	for {
		v := readAnyMsg(t, c)
		if v["type"] != "outage_start" && v["type"] != "outage_end" {
			return v
		}
	}
}

func statusMsg(ts time.Time, app, loc, status string, previous any) map[string]any {
	return map[string]any{"type": "status_update", "timestamp": ts.UTC().Format("2006-01-02T15:04:05.000Z"),
		"data": map[string]any{"app": app, "location": loc, "status": status, "previous_status": previous}}
}

// snapshotDoneMsg is the system_event that ends an /api/ws snapshot.
func snapshotDoneMsg(made time.Time, apps, unchecked int) map[string]any {
	return map[string]any{"type": "system_event", "timestamp": ts(made),
		"data": map[string]any{"event": "snapshot_complete", "apps": float64(apps), "unchecked": float64(unchecked)}}
}

// readSnapshotEnd reads the message that must end a snapshot and returns
// its data.
func readSnapshotEnd(t testing.TB, c *websocket.Conn) map[string]any {
	t.Helper()
	msg := readMsg(t, c)
	d, _ := msg["data"].(map[string]any)
	if msg["type"] != "system_event" || d["event"] != "snapshot_complete" {
		t.Fatalf("got %v, want the end of the snapshot", msg)
	}
	return d
}

func TestWSSnapshotThenLiveEvents(t *testing.T) {
	tm := newTestMonitor(t, openWrites)
	tm.src.Set("checkout", StatusUp, time.Millisecond)
	tm.src.Set("search", StatusDown, time.Millisecond)
	tm.scrape(t)
	srv := httptest.NewServer(tm.h)
	defer srv.Close()

	c := dialWS(t, srv, "/api/ws", nil)
	var snap []map[string]any
	for range 3 {
		snap = append(snap, readMsg(t, c))
	}
	want := []map[string]any{
		statusMsg(t0, "checkout", "Tel Aviv", "up", nil),
		statusMsg(t0, "search", "Tel Aviv", "down", nil),
		statusMsg(t0, "billing", "Frankfurt", "unavailable", nil),
	}
	if d := cmp.Diff(want, snap); d != "" {
		t.Fatalf("snapshot messages (-want +got):\n%s", d)
	}
	if d := cmp.Diff(snapshotDoneMsg(t0, 3, 0), readMsg(t, c)); d != "" {
		t.Fatalf("end of the snapshot (-want +got):\n%s", d)
	}

	// A change in the next cycle arrives as it happened, with its previous state.
	tm.clock.Advance(30 * time.Second)
	tm.src.Set("search", StatusUp, time.Millisecond)
	tm.scrape(t)
	if d := cmp.Diff(statusMsg(t0.Add(30*time.Second), "search", "Tel Aviv", "up", "down"), readMsg(t, c)); d != "" {
		t.Fatalf("status_update (-want +got):\n%s", d)
	}

	// An interval change through the API.
	rec := do(t, tm.h, "POST", "/api/scrape-interval", `{"interval":"45s"}`, nil)
	if rec.Code != 200 {
		t.Fatalf("POST: %d %s", rec.Code, rec.Body)
	}
	wantCfg := map[string]any{"type": "config_update", "timestamp": "2026-11-22T12:00:30.000Z",
		"data": map[string]any{"scrape_interval": "45s", "previous_interval": "30s"}}
	if d := cmp.Diff(wantCfg, readMsg(t, c)); d != "" {
		t.Fatalf("config_update (-want +got):\n%s", d)
	}

	// The backend going away and coming back.
	tm.src.SetErr(errors.New("connection refused"))
	tm.scrape(t)
	got := []map[string]any{}
	for range 3 { // checkout and search become unavailable, then the system event
		got = append(got, readMsg(t, c))
	}
	wantSys := map[string]any{"type": "system_event", "timestamp": "2026-11-22T12:00:30.000Z",
		"data": map[string]any{"event": "backend_disconnected", "backend": "main"}}
	if !slicesContain(got, wantSys) {
		t.Fatalf("no backend_disconnected among %v", got)
	}
}

func slicesContain(list []map[string]any, want map[string]any) bool {
	for _, m := range list {
		if cmp.Equal(m, want) {
			return true
		}
	}
	return false
}

// TestWSNoGapBetweenSnapshotAndStream connects while cycles run: every
// client sees each app's changes as one consistent sequence.
func TestWSNoGapBetweenSnapshotAndStream(t *testing.T) {
	tm := newTestMonitor(t, bigEventBuffer)
	srv := httptest.NewServer(tm.h)
	defer srv.Close()

	defer flipWhileTesting(t, tm, "checkout")()
	for range 5 {
		c := dialWS(t, srv, "/api/ws?apps=checkout", nil)
		first := readMsg(t, c)["data"].(map[string]any)
		prev := first["status"]
		for range 10 {
			msg := readMsg(t, c)
			if msg["type"] != "status_update" {
				continue // backend_connected after the first cycle
			}
			d := msg["data"].(map[string]any)
			// The app's first check has no previous status; a snapshot
			// taken before it shows the app unavailable.
			if prev == "unavailable" && d["previous_status"] == nil {
				prev = d["status"]
				continue
			}
			if d["previous_status"] != prev {
				t.Fatalf("after %v came a change from %v to %v: an event was lost or repeated", prev, d["previous_status"], d["status"])
			}
			prev = d["status"]
		}
		c.Close(websocket.StatusNormalClosure, "")
	}
}

func TestWSFilters(t *testing.T) {
	tm := newTestMonitor(t)
	tm.src.Set("checkout", StatusUp, 0)
	tm.src.Set("billing", StatusUp, 0)
	tm.scrape(t)
	srv := httptest.NewServer(tm.h)
	defer srv.Close()

	c := dialWS(t, srv, "/api/ws?locations=Frankfurt", nil)
	if got := readMsg(t, c)["data"].(map[string]any)["app"]; got != "billing" {
		t.Fatalf("first message of a Frankfurt stream is about %v", got)
	}
	readSnapshotEnd(t, c)
	tm.src.Set("checkout", StatusDown, 0) // Tel Aviv: filtered out
	tm.scrape(t)
	tm.SetInterval(time.Minute) // config_update always passes
	if got := readMsg(t, c)["type"]; got != "config_update" {
		t.Fatalf("got %v, want config_update (the Tel Aviv change is filtered out)", got)
	}

	c2 := dialWS(t, srv, "/api/ws?apps=search,checkout&locations=Tel%20Aviv", nil)
	var apps []any
	for range 2 {
		apps = append(apps, readMsg(t, c2)["data"].(map[string]any)["app"])
	}
	if d := cmp.Diff([]any{"checkout", "search"}, apps); d != "" {
		t.Errorf("apps filter (-want +got):\n%s", d)
	}
}

func TestWSBadRequests(t *testing.T) {
	tm := newTestMonitor(t, func(o *Options) { o.WSMaxClients = 1 })
	srv := httptest.NewServer(tm.h)
	defer srv.Close()
	upgrade := http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"},
		"Sec-Websocket-Version": {"13"}, "Sec-Websocket-Key": {"dGhlIHNhbXBsZSBub25jZQ=="}}
	for _, tt := range []struct {
		name   string
		target string
		header http.Header
		status int
		code   string
	}{
		{"not a websocket", "/api/ws", nil, http.StatusUpgradeRequired, "VALIDATION_ERROR"},
		{"unknown app", "/api/ws?apps=nope", upgrade, 400, "VALIDATION_ERROR"},
		{"unknown location", "/api/ws?locations=Atlantis", upgrade, 400, "VALIDATION_ERROR"},
		{"empty filter", "/api/ws?apps=,", upgrade, 400, "VALIDATION_ERROR"},
		{"unknown parameter", "/api/ws?app=checkout", upgrade, 400, "VALIDATION_ERROR"},
		{"wrong method", "/api/ws", upgrade, 405, "VALIDATION_ERROR"},
		{"old protocol version", "/api/ws", withHeader(upgrade, "Sec-Websocket-Version", "8"), 400, "VALIDATION_ERROR"},
		{"no key", "/api/ws", withHeader(upgrade, "Sec-Websocket-Key", ""), 400, "VALIDATION_ERROR"},
		{"another origin", "/api/ws", withHeader(upgrade, "Origin", "http://evil.example"), 403, "FORBIDDEN"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			method := "GET"
			if tt.status == 405 {
				method = "POST"
			}
			rec := do(t, tm.h, method, tt.target, "", tt.header)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			e, _ := decode(t, rec.Body.Bytes())["error"].(map[string]any)
			if e["code"] != tt.code {
				t.Fatalf("error %v, want code %s", e, tt.code)
			}
		})
	}

	// One client is the limit: the second is refused with 503.
	dialWS(t, srv, "/api/ws", nil)
	_, resp, err := websocket.Dial(context.Background(), wsURL(srv, "/api/ws"), nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("second client: %v %v, want 503", err, resp)
	}
	rec := do(t, tm.h, "GET", "/api/ws", "", upgrade)
	e, _ := decode(t, rec.Body.Bytes())["error"].(map[string]any)
	if rec.Code != 503 || e["code"] != "SERVICE_UNAVAILABLE" {
		t.Errorf("past the limit: %d %v, want 503 SERVICE_UNAVAILABLE", rec.Code, e)
	}
}

func TestWSProtectReads(t *testing.T) {
	tm := newAuthMonitor(t, true)
	srv := httptest.NewServer(tm.h)
	defer srv.Close()
	_, resp, err := websocket.Dial(context.Background(), wsURL(srv, "/api/ws"), nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("unsigned upgrade: %v, want 403", err)
	}
	req := httptest.NewRequest("GET", "/api/ws", nil)
	if err := hmac.SignRequest(req, authSecret, tm.clock.Now()); err != nil {
		t.Fatal(err)
	}
	tm.scrape(t) // the apps' states, which the stream starts with
	c := dialWS(t, srv, "/api/ws", req.Header)
	if got := readMsg(t, c)["type"]; got != "status_update" {
		t.Errorf("signed upgrade: first message %v", got)
	}

	// A signed interval change reaches the stream as config_update.
	post := signedReq(t, "POST", "/api/scrape-interval", `{"interval":"90s"}`, authSecret, tm.clock.Now())
	if rec := serve(tm.h, post); rec.Code != 200 {
		t.Fatalf("signed POST: %d %s", rec.Code, rec.Body)
	}
	for range 2 { // the rest of the snapshot
		readMsg(t, c)
	}
	readSnapshotEnd(t, c)
	msg := readMsg(t, c)
	if msg["type"] != "config_update" || msg["data"].(map[string]any)["scrape_interval"] != "90s" {
		t.Errorf("after a signed POST: %v, want config_update to 90s", msg)
	}
}

func TestWSShutdown(t *testing.T) {
	before := runtime.NumGoroutine()
	tm := newTestMonitor(t, func(o *Options) { o.Interval = time.Hour })
	srv := httptest.NewServer(tm.h)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tm.Run(ctx) }()
	waitFor(t, "the first cycle", func() bool { return tm.snap.Load().seq > 0 })

	var clients []*websocket.Conn
	for range 3 {
		c := dialWS(t, srv, "/api/ws", nil)
		for range 3 {
			readMsg(t, c) // snapshot
		}
		readSnapshotEnd(t, c)
		clients = append(clients, c)
	}
	cancel()
	// Run returns only once the clients have been sent the shutdown event
	// and closed: a program that exits after Run loses none.
	type seen struct {
		msg      map[string]any
		closeErr error
	}
	readers := make(chan seen, len(clients))
	for _, c := range clients {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var got seen
			if _, b, err := c.Read(ctx); err == nil {
				json.Unmarshal(b, &got.msg)
			}
			_, _, got.closeErr = c.Read(ctx) // answers the close frame
			readers <- got
		}()
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n, _ := tm.ws.counts(); n != 0 {
		t.Errorf("Run returned with %d clients still connected", n)
	}
	for i := range clients {
		got := <-readers
		if got.msg["type"] != "system_event" || got.msg["data"].(map[string]any)["event"] != "shutdown" {
			t.Fatalf("client %d: %v, want the shutdown system_event", i, got.msg)
		}
		if websocket.CloseStatus(got.closeErr) != websocket.StatusNormalClosure {
			t.Fatalf("client %d: after shutdown %v, want a normal close", i, got.closeErr)
		}
		var ce websocket.CloseError
		if errors.As(got.closeErr, &ce) && ce.Reason != "shutdown" {
			t.Errorf("close reason %q, want shutdown", ce.Reason)
		}
	}
	// New clients are refused while the monitor is stopped.
	if _, resp, err := websocket.Dial(context.Background(), wsURL(srv, "/api/ws"), nil); err == nil || resp.StatusCode != 503 {
		t.Errorf("dial after shutdown: %v, want 503", err)
	}
	waitFor(t, "the handlers to return", func() bool { n, _ := tm.ws.counts(); return n == 0 })
	srv.Close()
	waitFor(t, "no goroutine left", func() bool { return runtime.NumGoroutine() <= before })
}

// TestWSSlowClient has one client that never reads and one that does: the
// silent one is closed, cycles go on at full speed, and the reader gets
// every event.
func TestWSSlowClient(t *testing.T) {
	const apps = 200
	tm := newTestMonitor(t, func(o *Options) {
		o.Apps = nil
		for i := range apps {
			o.Apps = append(o.Apps, App{Name: fmt.Sprintf("app-%03d-%s", i, strings.Repeat("x", 200)), Location: "Tel Aviv"})
		}
		// Long enough that the reading client, on a loaded machine, is
		// never the one cut off; the silent one is, however long it takes.
		o.WSWriteTimeout = 2 * time.Second
		o.EventBuffer = 4 * apps
	})
	srv := httptest.NewServer(tm.h)
	defer srv.Close()
	tm.scrape(t) // the apps' states, which the stream starts with
	before := tm.events.cursor()

	silent := dialWS(t, srv, "/api/ws", nil) // never reads
	_ = silent
	reader := dialWS(t, srv, "/api/ws", nil)
	var received atomic.Int64
	readDone := make(chan error, 1)
	go func() {
		for {
			_, _, err := reader.Read(context.Background())
			if err != nil {
				readDone <- err
				return
			}
			received.Add(1)
		}
	}()

	// The reader keeps up with the cycles (it is paced like a real client
	// behind cycles seconds apart); the silent one never does.
	waitReader := func(want int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for received.Load() < int64(want) {
			select {
			case err := <-readDone:
				t.Fatalf("the reader ended after %d of %d messages: %v", received.Load(), want, err)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("the reader got %d of %d messages", received.Load(), want)
			}
			time.Sleep(time.Millisecond) // polling
		}
	}
	cycles := 0
	waitReader(apps) // the snapshot
	// The silent client is closed once loopback's socket buffers are full
	// and then a write has waited WSWriteTimeout: a matter of wall time,
	// not of a number of cycles (on an idle machine 2,000 cycles took less
	// than the timeout once the buffers were full).
	deadline := time.Now().Add(time.Minute)
	for {
		if _, slow := tm.ws.counts(); slow > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the silent client was never closed after %d cycles", cycles)
		}
		st := StatusUp
		if cycles%2 == 1 {
			st = StatusDown
		}
		for i := range apps {
			tm.src.Set(tm.plan.apps[i].Name, st, 0)
		}
		tm.clock.Advance(time.Second)
		tm.scrape(t) // never waits on a client
		cycles++
		waitReader(apps + int(tm.events.cursor()-before))
	}
	if clients, slow := tm.ws.counts(); clients != 1 || slow != 1 {
		t.Fatalf("clients %d, closed as slow %d; want the reader left and the silent one closed", clients, slow)
	}
	// The reader got everything: the snapshot and every event.
	waitReader(apps + int(tm.events.cursor()-before))
	reader.Close(websocket.StatusNormalClosure, "")
	<-readDone
	t.Logf("%d cycles of %d changes ran while the silent client was being closed", cycles, apps)
}

// fanOut connects clients to a monitor of apps apps before its first
// cycle, flips every app rounds times (apps*rounds status_update events),
// and checks that every client received every event, in order. It returns how long delivery took
// after the first change.
func fanOut(t testing.TB, clients, apps, rounds int) time.Duration {
	tm := newTestMonitor(t, func(o *Options) {
		o.Apps = nil
		for i := range apps {
			o.Apps = append(o.Apps, App{Name: fmt.Sprintf("app-%02d", i), Location: "Tel Aviv"})
		}
		o.WSMaxClients = clients
		// The burst fits: no client may lose any. A round that takes every
		// app down or up makes a status_update and an outage event per
		// app, and one outage event of the location.
		o.EventBuffer = 3 * apps * rounds
		// Delivery is checked, not speed: on a loaded machine a reader can
		// stall past the default 10s and be cut off as too slow. The limits
		// here only keep a lost message from hanging the test.
		o.WSWriteTimeout = 5 * time.Minute
	})
	srv := httptest.NewServer(tm.h)
	defer srv.Close()
	srv.Config.ErrorLog = nil

	type result struct {
		n   int
		err error
	}
	results := make(chan result, clients)
	conns := make([]*websocket.Conn, clients)
	for i := range conns {
		conns[i] = dialWS(t, srv, "/api/ws", nil)
	}
	// Before the first cycle no app has a state to tell: the snapshot is
	// only its end.
	want := 1 + apps*rounds + 1 // its end, changes (the first checks first), backend_connected
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	t.Logf("%d clients connected: %d goroutines (client and server sides), heap in use %d MiB",
		clients, runtime.NumGoroutine(), ms.HeapInuse>>20)
	start := time.Now()
	for _, c := range conns {
		go func() {
			last := map[string]string{}
			for n := 0; n < want; {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				_, b, err := c.Read(ctx)
				cancel()
				if err != nil {
					results <- result{n, err}
					return
				}
				var msg struct {
					Type string
					Data struct{ App, Status, Previous_status string }
				}
				if err := json.Unmarshal(b, &msg); err != nil {
					results <- result{n, err}
					return
				}
				if msg.Type == "outage_start" || msg.Type == "outage_end" {
					continue // not counted in want
				}
				n++
				if msg.Type != "status_update" {
					continue
				}
				d := msg.Data
				if last[d.App] != d.Previous_status {
					results <- result{n, fmt.Errorf("%s went %q -> %q after %q: out of order or lost", d.App, d.Previous_status, d.Status, last[d.App])}
					return
				}
				last[d.App] = d.Status
			}
			results <- result{want, nil}
		}()
	}
	for r := range rounds {
		st := StatusUp
		if r%2 == 1 {
			st = StatusDown
		}
		for i := range apps {
			tm.src.Set(tm.plan.apps[i].Name, st, 0)
		}
		tm.clock.Advance(time.Second)
		tm.scrape(t)
	}
	for range clients {
		if r := <-results; r.err != nil || r.n != want {
			t.Fatalf("a client got %d of %d messages: %v", r.n, want, r.err)
		}
	}
	took := time.Since(start)
	// What the idle connections keep once the burst is delivered.
	runtime.GC()
	runtime.ReadMemStats(&ms)
	t.Logf("after the burst, %d idle clients: heap in use %d MiB", clients, ms.HeapInuse>>20)
	for _, c := range conns {
		c.Close(websocket.StatusNormalClosure, "")
	}
	return took
}

// TestWSFanOut: 1,000 clients on loopback each receive every event of a
// burst of 1,000 changes (10 apps flipped 100 times), in order, with no loss.
func TestWSFanOut(t *testing.T) {
	clients := 1000
	if raceEnabled {
		clients = 20 // .ci/run runs it full size without the race detector
	}
	took := fanOut(t, clients, 10, 100)
	t.Logf("%d clients x 1,002 messages delivered in %v", clients, took)
}

// TestWSOutlivesServerTimeouts: a server with short read and write timeouts
// (as the binary and careful embedders set) does not cut the stream.
func TestWSOutlivesServerTimeouts(t *testing.T) {
	const timeout = 200 * time.Millisecond
	tm := newTestMonitor(t)
	srv := httptest.NewUnstartedServer(tm.h)
	srv.Config.ReadTimeout, srv.Config.WriteTimeout = timeout, timeout
	srv.Start()
	defer srv.Close()

	tm.scrape(t) // checkout's state, which the stream starts with
	c := dialWS(t, srv, "/api/ws?apps=checkout", nil)
	readMsg(t, c)
	readSnapshotEnd(t, c)
	// Let both server deadlines pass; this wait is what the test is about.
	<-time.After(3 * timeout)
	tm.src.Set("checkout", StatusUp, 0)
	tm.scrape(t)
	if msg := readMsg(t, c); msg["data"].(map[string]any)["status"] != "up" {
		t.Fatalf("after the server's deadlines: %v", msg)
	}
	// An ordinary request on that server still has its timeouts: a plain
	// GET /api/ws is refused before any upgrade, and deadlines are kept.
	resp, err := http.Get(srv.URL + "/api/ws")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUpgradeRequired {
		t.Errorf("plain GET /api/ws: %d", resp.StatusCode)
	}
}

// The server pings idle clients every WSPingInterval; a client that answers
// stays connected and still gets the next cycle's events.
func TestWSPing(t *testing.T) {
	tm := newTestMonitor(t, func(o *Options) { o.WSPingInterval = 10 * time.Millisecond })
	srv := httptest.NewServer(tm.h)
	defer srv.Close()
	pings := make(chan struct{}, 100)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, wsURL(srv, "/api/ws"), &websocket.DialOptions{
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
	c.SetReadLimit(1 << 20)
	// Before the first cycle no app has a state to send: the snapshot is
	// only its end, and until the cycle the only frames are pings, which a
	// pending Read answers.
	if d := readSnapshotEnd(t, c); d["apps"] != 0.0 {
		t.Fatalf("before the first cycle, the snapshot had %v apps", d["apps"])
	}
	readErr := make(chan error, 1)
	go func() {
		_, b, err := c.Read(ctx)
		if err == nil {
			err = fmt.Errorf("message %s", b)
		}
		readErr <- err
	}()
	for range 3 {
		select {
		case <-pings:
		case err := <-readErr:
			t.Fatalf("connection ended before 3 pings: %v", err)
		case <-ctx.Done():
			t.Fatal("fewer than 3 pings in 10s")
		}
	}
	tm.src.Set("checkout", StatusUp, 0)
	tm.scrape(t)
	if err := <-readErr; err == nil || !strings.Contains(err.Error(), `"status_update"`) {
		t.Fatalf("after the pings: %v, want the first cycle's status_update", err)
	}
}

// A burst in one cycle: 1,000 apps change at once (their first check). Run
// with -run TestWSOneCycleBurst -v for the figures.
func TestWSOneCycleBurst(t *testing.T) {
	clients := 1000
	if raceEnabled || testing.Short() {
		clients = 20
	}
	took := fanOut(t, clients, 1000, 1)
	t.Logf("%d clients x 1,002 messages (1,000 of them one cycle's changes) delivered in %v", clients, took)
}

// TestWSAfterRestart: a client that connects after Run has ended and started
// again, before the new Run's first cycle, is not sent the old shutdown.
func TestWSAfterRestart(t *testing.T) {
	tm := newTestMonitor(t, func(o *Options) { o.Interval = time.Hour })
	srv := httptest.NewServer(tm.h)
	defer srv.Close()
	gate := make(chan struct{})
	var second atomic.Bool
	tm.src.check = func(ctx context.Context, apps []App) ([]Result, error) {
		select { // hold the first cycle of each Run until the test lets go
		case <-gate:
		case <-ctx.Done():
		}
		out := make([]Result, len(apps))
		for i := range out {
			out[i].Status = StatusUnavailable
			if second.Load() && apps[i].Name == "checkout" {
				out[i].Status = StatusUp // a change the client must see
			}
		}
		return out, nil
	}
	var c *websocket.Conn
	for run := range 2 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- tm.Run(ctx) }()
		waitFor(t, "Run to start", func() bool { return tm.run.running.Load() })
		if run == 1 {
			c = dialWS(t, srv, "/api/ws?apps=checkout", nil)
			readMsg(t, c) // the current state
			readSnapshotEnd(t, c)
			second.Store(true)
			gate <- struct{}{}
			msg := readMsg(t, c)
			if msg["type"] != "status_update" || msg["data"].(map[string]any)["status"] != "up" {
				t.Fatalf("after a restart the client got %v, want checkout's change to up", msg)
			}
		} else {
			gate <- struct{}{}
			waitFor(t, "the first cycle", func() bool { return tm.snap.Load().seq > 0 })
		}
		cancel()
		if c != nil {
			if msg := readMsg(t, c); msg["type"] != "system_event" {
				t.Errorf("at the end of the second Run: %v, want its shutdown", msg)
			}
			c.Read(context.Background()) // answer the close frame
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// The snapshot ends with snapshot_complete right after the status_update
// of every checked app, whether or not some apps have no check yet: a
// client cannot count its way to the end, as it does not know which apps
// were checked. The unchecked apps' first checks come after it.
func TestWSSnapshotEnd(t *testing.T) {
	withPayments := func(tm *testMonitor) {
		o := reconfigured(tm)
		o.Apps = append(o.Apps, App{Name: "search", Location: "Tel Aviv", Metric: `up{job="search"}`})
		if _, err := tm.Reconfigure(o); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		before    func(*testMonitor) // before the client connects
		path      string
		snapshot  []map[string]any
		unchecked int
		first     []string // the apps whose first check the next cycle brings
	}{
		{name: "before the first cycle", before: func(*testMonitor) {}, path: "/api/ws",
			unchecked: 3, first: []string{"checkout", "search", "billing"}},
		{name: "every app checked", before: func(tm *testMonitor) { tm.scrape(t) }, path: "/api/ws",
			snapshot: []map[string]any{statusMsg(t0, "checkout", "Tel Aviv", "up", nil),
				statusMsg(t0, "search", "Tel Aviv", "down", nil), statusMsg(t0, "billing", "Frankfurt", "unavailable", nil)}},
		{name: "an app added by a reload", before: func(tm *testMonitor) { tm.scrape(t); withPayments(tm) }, path: "/api/ws",
			snapshot: []map[string]any{statusMsg(t0, "checkout", "Tel Aviv", "up", nil),
				statusMsg(t0, "billing", "Frankfurt", "unavailable", nil), statusMsg(t0, "search", "Tel Aviv", "down", nil)},
			unchecked: 1, first: []string{"payments"}},
		{name: "filtered", before: func(tm *testMonitor) { tm.scrape(t); withPayments(tm) }, path: "/api/ws?locations=Frankfurt",
			snapshot:  []map[string]any{statusMsg(t0, "billing", "Frankfurt", "unavailable", nil)},
			unchecked: 1, first: []string{"payments"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tm := newTestMonitor(t)
			tm.src.Set("checkout", StatusUp, time.Millisecond)
			tm.src.Set("search", StatusDown, time.Millisecond)
			tt.before(tm)
			made := tm.snap.Load().made
			srv := httptest.NewServer(tm.h)
			defer srv.Close()
			c := dialWS(t, srv, tt.path, nil)
			var got []map[string]any
			for range tt.snapshot {
				got = append(got, readMsg(t, c))
			}
			if d := cmp.Diff(tt.snapshot, got); d != "" {
				t.Fatalf("snapshot (-want +got):\n%s", d)
			}
			next := func() {
				tm.clock.Advance(30 * time.Second)
				tm.scrape(t)
			}
			// Once a snapshot message is read, the server follows that
			// snapshot: the next cycle's events are in the log before the
			// end is read, and the end must come first all the same. (An
			// empty snapshot gives no such sign.)
			if len(tt.snapshot) > 0 {
				next()
			}
			if d := cmp.Diff(snapshotDoneMsg(made, len(tt.snapshot), tt.unchecked), readMsg(t, c)); d != "" {
				t.Fatalf("after the snapshot (-want +got):\n%s", d)
			}
			if len(tt.snapshot) == 0 {
				next()
			}
			var firsts []string
			for len(firsts) < len(tt.first) {
				msg := readMsg(t, c)
				d := msg["data"].(map[string]any)
				if msg["type"] == "system_event" && d["event"] == "backend_connected" {
					continue // the first cycle's
				}
				if d["previous_status"] != nil {
					t.Errorf("%v: previous_status %v on its first check", d["app"], d["previous_status"])
				}
				firsts = append(firsts, d["app"].(string))
			}
			if d := cmp.Diff(tt.first, firsts); d != "" {
				t.Errorf("first checks after the end of the snapshot (-want +got):\n%s", d)
			}
		})
	}
}

// A client that stops reading answers no ping either; whether a ping or
// an event finds it so first, it is closed as too slow.
func TestWSUnansweredPingIsSlow(t *testing.T) {
	tm := newTestMonitor(t, func(o *Options) {
		o.WSPingInterval = 50 * time.Millisecond
		o.WSWriteTimeout = 200 * time.Millisecond
	})
	srv := httptest.NewServer(tm.h)
	defer srv.Close()
	tm.scrape(t)
	silent := dialWS(t, srv, "/api/ws", nil) // never reads, so never answers a ping
	_ = silent
	deadline := time.Now().Add(20 * time.Second)
	for {
		clients, slow := tm.ws.counts()
		if slow == 1 && clients == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("clients %d, closed as slow %d; want the silent client closed as slow", clients, slow)
		}
		time.Sleep(time.Millisecond) // polling
	}
}
