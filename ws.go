package availmon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

const (
	defaultMaxWSClients   = 1000
	defaultWSPing         = 30 * time.Second
	defaultWSWriteTimeout = 10 * time.Second
)

// wsConfig holds the /api/ws settings of Options, defaults applied.
type wsConfig struct {
	maxClients   int
	ping         time.Duration
	writeTimeout time.Duration
	enc          *wsEncodings
	// bufs holds *[]Event for reading the log: a burst is copied out once
	// per client, and reusing the copies keeps that from being an
	// allocation per client per burst, while idle clients hold none.
	bufs *sync.Pool
}

// wsEncodings holds the JSON of recent events, in step with the event log,
// so a burst sent to a thousand clients is encoded once rather than a
// thousand times.
type wsEncodings struct {
	mu  sync.Mutex
	seq []uint64 // 1 + the sequence number of the event whose JSON b holds; 0 for none
	b   [][]byte
}

func newWSEncodings(size int) *wsEncodings {
	return &wsEncodings{seq: make([]uint64, size), b: make([][]byte, size)}
}

// get returns the JSON message of e, whose sequence number is seq. The
// returned slice is shared: it must not be modified.
func (w *wsEncodings) get(seq uint64, e *Event) ([]byte, error) {
	i := seq % uint64(len(w.seq))
	w.mu.Lock()
	if w.seq[i] == seq+1 {
		b := w.b[i]
		w.mu.Unlock()
		return b, nil
	}
	w.mu.Unlock()
	// Encode outside the lock; two clients may both encode one event, which
	// costs less than making every other client wait.
	b, err := json.Marshal(eventMessage(e))
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	if w.seq[i] < seq+1 {
		w.seq[i], w.b[i] = seq+1, b
	}
	w.mu.Unlock()
	return b, nil
}

// Close reasons an /api/ws client may see.
const (
	wsReasonLost     = "client too slow: events lost"
	wsReasonShutdown = "shutdown"
)

// wsMessage is one /api/ws message, as the interface's "Events" part shows.
type wsMessage struct {
	Type      EventType `json:"type"`
	Timestamp jsonTime  `json:"timestamp"`
	Data      any       `json:"data"`
}

type wsStatusData struct {
	App      string `json:"app"`
	Status   Status `json:"status"`
	Location string `json:"location"`
	// PreviousStatus is null on an app's first check and in the messages
	// that replay the current state on connect.
	PreviousStatus *Status `json:"previous_status"`
}

type wsConfigData struct {
	ScrapeInterval   string `json:"scrape_interval"`
	PreviousInterval string `json:"previous_interval"`
}

type wsSystemData struct {
	Event   string `json:"event"`
	Backend string `json:"backend,omitempty"`
}

func eventMessage(e *Event) wsMessage {
	msg := wsMessage{Type: e.Type, Timestamp: jsonTime(e.Time)}
	switch e.Type {
	case EventStatusUpdate:
		d := wsStatusData{App: e.App, Status: e.Status, Location: e.Location}
		if e.PreviousStatus != "" {
			prev := e.PreviousStatus
			d.PreviousStatus = &prev
		}
		msg.Data = d
	case EventConfigUpdate:
		msg.Data = wsConfigData{ScrapeInterval: e.Interval, PreviousInterval: e.PreviousInterval}
	default:
		msg.Data = wsSystemData{Event: e.Name, Backend: e.Backend}
	}
	return msg
}

// wsFilter narrows status_update messages to some apps and locations; a nil
// set lets everything through. Other messages always pass.
type wsFilter struct {
	apps, locs map[string]bool
}

func (f *wsFilter) pass(app, loc string) bool {
	return (f.apps == nil || f.apps[app]) && (f.locs == nil || f.locs[loc])
}

// parseWSFilter reads the optional apps= and locations= parameters
// (comma-separated names). An unknown or empty name is an error: a typo
// should not silently give an empty stream.
func (m *Monitor) parseWSFilter(r *http.Request) (wsFilter, error) {
	var f wsFilter
	q := r.URL.Query()
	parse := func(param, what string, known func(string) bool) (map[string]bool, error) {
		vals, ok := q[param]
		if !ok {
			return nil, nil
		}
		set := map[string]bool{}
		var bad []string
		for _, v := range vals {
			for name := range strings.SplitSeq(v, ",") {
				if !known(name) {
					bad = append(bad, fmt.Sprintf("%s: no %s is named %q", param, what, name))
					continue
				}
				set[name] = true
			}
		}
		if bad != nil {
			return nil, validationError("unknown name in the "+param+" filter", bad...)
		}
		return set, nil
	}
	var err error
	if f.apps, err = parse("apps", "application", func(n string) bool { return hasKey(m.appIndex, n) }); err != nil {
		return f, err
	}
	if f.locs, err = parse("locations", "location", func(n string) bool { return hasKey(m.locIndex, n) }); err != nil {
		return f, err
	}
	return f, nil
}

// isWebSocketUpgrade reports whether r asks to be upgraded to a WebSocket.
func isWebSocketUpgrade(r *http.Request) bool {
	return headerHasToken(r.Header, "Connection", "upgrade") && headerHasToken(r.Header, "Upgrade", "websocket")
}

func headerHasToken(h http.Header, key, token string) bool {
	for _, v := range h.Values(key) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// serveWS is GET /api/ws. Everything that can be refused is checked before
// the upgrade, so the refusal is the API's usual error envelope: a
// non-WebSocket request or a bad filter gets 400 VALIDATION_ERROR (rather
// than 426, whose meaning clients handle less uniformly), too many clients
// or a stopped monitor 503 SERVICE_UNAVAILABLE.
//
// There is no hub goroutine: the event log is the shared buffer and each
// connection's handler goroutine reads it at its own pace, so the scrape
// loop only ever appends to the log and never waits on a client.
func (m *Monitor) serveWS(w http.ResponseWriter, r *http.Request) {
	if !isWebSocketUpgrade(r) {
		m.writeError(w, r, validationError("this endpoint needs a WebSocket upgrade",
			"send the request with Connection: Upgrade and Upgrade: websocket"))
		return
	}
	filter, err := m.parseWSFilter(r)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	if m.stopping.Load() {
		m.writeError(w, r, &apiError{status: http.StatusServiceUnavailable, code: codeServiceUnavailable,
			message: "the monitor is shutting down"})
		return
	}
	if n := m.wsClients.Add(1); n > int64(m.ws.maxClients) {
		m.wsClients.Add(-1)
		m.writeError(w, r, &apiError{status: http.StatusServiceUnavailable, code: codeServiceUnavailable,
			message: "too many WebSocket clients",
			details: []string{fmt.Sprintf("at most %d may be connected at once", m.ws.maxClients)}})
		return
	}
	defer m.wsClients.Add(-1)

	// Origin checks are left to the library's default (same host only);
	// with ProtectReads the upgrade request was verified like any read.
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		m.log.Debug("websocket upgrade failed", "err", err)
		return // Accept has answered
	}
	defer c.CloseNow()
	// Clients send nothing; CloseRead answers pings and close frames and
	// ends ctx when the client goes away. r.Context() ends it on
	// http.Server.Shutdown or Close.
	ctx := c.CloseRead(r.Context())
	err = m.streamWS(ctx, c, filter)
	var ce closeError
	switch {
	case errors.As(err, &ce):
		m.log.Debug("websocket client closed", "reason", ce.reason)
		c.Close(ce.status, ce.reason)
	case err != nil:
		m.log.Debug("websocket client dropped", "err", err)
	}
}

// closeError asks serveWS to end the connection with a close frame.
type closeError struct {
	status websocket.StatusCode
	reason string
}

func (e closeError) Error() string { return e.reason }

// streamWS sends the current state and then the event log from the
// snapshot's eventSeq on: events before it are reflected in the snapshot,
// events from it on are not, so nothing is missed or sent twice.
func (m *Monitor) streamWS(ctx context.Context, c *websocket.Conn, f wsFilter) error {
	s := m.snap.Load()
	for i := range s.apps {
		a := &s.apps[i]
		if !a.checked || !f.pass(m.apps[i].Name, m.apps[i].Location) {
			continue // an unchecked app's first check will be an event
		}
		b, err := json.Marshal(wsMessage{Type: EventStatusUpdate, Timestamp: jsonTime(a.lastCheck),
			Data: wsStatusData{App: m.apps[i].Name, Status: a.status, Location: m.apps[i].Location}})
		if err != nil {
			return err
		}
		if err := m.writeWS(ctx, c, b); err != nil {
			return err
		}
	}

	ping := time.NewTicker(m.ws.ping)
	defer ping.Stop()
	from := s.eventSeq
	for {
		bp, _ := m.ws.bufs.Get().(*[]Event)
		if bp == nil {
			bp = new([]Event)
		}
		evs, next, lost, wait := m.events.read(from, (*bp)[:0])
		err := m.sendEvents(ctx, c, f, evs, next, lost)
		clear(evs) // drop the strings it refers to
		*bp = evs[:0]
		m.ws.bufs.Put(bp)
		if err != nil {
			return err
		}
		from = next
		select {
		case <-wait:
		case <-ping.C:
			pctx, cancel := context.WithTimeout(ctx, m.ws.writeTimeout)
			err := c.Ping(pctx)
			cancel()
			if err != nil {
				return fmt.Errorf("ping: %w", err)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// sendEvents writes the events read from the log that pass f; next is the
// sequence number after the last of evs.
func (m *Monitor) sendEvents(ctx context.Context, c *websocket.Conn, f wsFilter, evs []Event, next uint64, lost bool) error {
	if lost {
		return closeError{websocket.StatusPolicyViolation, wsReasonLost}
	}
	first := next - uint64(len(evs)) // the sequence number of evs[0]
	for i := range evs {
		e := &evs[i]
		if e.Type == EventStatusUpdate && !f.pass(e.App, e.Location) {
			continue
		}
		b, err := m.ws.enc.get(first+uint64(i), e)
		if err != nil {
			return err
		}
		if err := m.writeWS(ctx, c, b); err != nil {
			return err
		}
		if e.Type == EventSystem && e.Name == wsReasonShutdown {
			return closeError{websocket.StatusNormalClosure, wsReasonShutdown}
		}
	}
	return nil
}

// writeWS sends one message. A client that does not take it within the
// write timeout is dropped; no close frame can reach it past a full socket.
func (m *Monitor) writeWS(ctx context.Context, c *websocket.Conn, b []byte) error {
	wctx, cancel := context.WithTimeout(ctx, m.ws.writeTimeout)
	defer cancel()
	return c.Write(wctx, websocket.MessageText, b)
}
