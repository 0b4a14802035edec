package availmon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/availmon/availmon/internal/jsontime"
	"github.com/coder/websocket"
)

// Defaults of the /api/ws stream.
const (
	defaultWSMaxClients   = 1000
	defaultWSPingInterval = 30 * time.Second
	defaultWSWriteTimeout = 10 * time.Second
)

// Close reasons a client may see.
const (
	wsReasonShutdown = "shutdown"
	wsReasonSlow     = "client too slow: events were lost"
	wsReasonStalled  = "client too slow: write timed out"
)

// wsMessage is one /api/ws message: {type, timestamp, data}.
type wsMessage struct {
	Type      EventType     `json:"type"`
	Timestamp jsontime.Time `json:"timestamp"`
	Data      any           `json:"data"`
}

type wsStatusData struct {
	App            string  `json:"app"`
	Status         Status  `json:"status"`
	Location       string  `json:"location"`
	PreviousStatus *Status `json:"previous_status"` // null on an app's first check
}

// wsOutageData is the data of outage_start and outage_end; end and
// duration_seconds are null in outage_start.
type wsOutageData struct {
	Kind            string        `json:"kind"`
	Name            string        `json:"name"`
	Location        string        `json:"location,omitempty"` // an app's
	Start           jsontime.Time `json:"start"`
	End             jsontime.Time `json:"end"`
	DurationSeconds *int64        `json:"duration_seconds"`
	Extent          string        `json:"extent"` // "partial" or "full"
}

// wsObjectiveData is the data of objective_state.
type wsObjectiveData struct {
	Objective     string `json:"objective"`
	State         string `json:"state"`
	PreviousState string `json:"previous_state"`
}

func outageData(o *OutageEvent, location string) wsOutageData {
	d := wsOutageData{Kind: o.Kind, Name: o.Name, Start: jsontime.Time(o.Start), End: jsontime.Time(o.End), Extent: "partial"}
	if o.Kind == "app" {
		d.Location = location
	}
	if o.Full {
		d.Extent = "full"
	}
	if !o.End.IsZero() {
		s := int64(o.End.Sub(o.Start) / time.Second)
		d.DurationSeconds = &s
	}
	return d
}

type wsConfigData struct {
	ScrapeInterval   string `json:"scrape_interval"`
	PreviousInterval string `json:"previous_interval"`
}

// wsChangeData is a config_update about the set of apps; every list is
// present, empty when nothing of its kind changed.
type wsChangeData struct {
	AppsAdded        []string `json:"apps_added"`
	AppsRemoved      []string `json:"apps_removed"`
	AppsChanged      []string `json:"apps_changed"`
	LocationsAdded   []string `json:"locations_added"`
	LocationsRemoved []string `json:"locations_removed"`
	LocationsChanged []string `json:"locations_changed"`
	BackendsAdded    []string `json:"backends_added"`
	BackendsRemoved  []string `json:"backends_removed"`
	BackendsChanged  []string `json:"backends_changed"`
	TotalApps        int      `json:"total_apps"`
}

func changeData(c *ConfigChange) wsChangeData {
	l := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	return wsChangeData{
		AppsAdded: l(c.AppsAdded), AppsRemoved: l(c.AppsRemoved), AppsChanged: l(c.AppsChanged),
		LocationsAdded: l(c.LocationsAdded), LocationsRemoved: l(c.LocationsRemoved), LocationsChanged: l(c.LocationsChanged),
		BackendsAdded: l(c.BackendsAdded), BackendsRemoved: l(c.BackendsRemoved), BackendsChanged: l(c.BackendsChanged),
		TotalApps: c.Apps,
	}
}

type wsSystemData struct {
	Event   string `json:"event"`
	Backend string `json:"backend,omitempty"`
}

// eventSnapshotComplete is the event of the system_event that ends the
// snapshot of an /api/ws stream.
const eventSnapshotComplete = "snapshot_complete"

// wsSnapshotData is the system_event that ends an /api/ws client's
// snapshot: the status_update messages before it were the snapshot (Apps of
// them), every message after it is a live event. Unchecked apps (passing the
// filter) have no state yet and so no message: each comes with its first
// check. A client cannot count its way to the end instead, as it does not
// know which apps were checked.
type wsSnapshotData struct {
	Event     string `json:"event"`
	Apps      int    `json:"apps"`
	Unchecked int    `json:"unchecked"`
}

// snapshotMessage encodes the end of a snapshot made at made.
func snapshotMessage(made time.Time, sent, unchecked int) []byte {
	b, err := marshal(wsMessage{Type: EventSystem, Timestamp: jsontime.Time(made),
		Data: wsSnapshotData{Event: eventSnapshotComplete, Apps: sent, Unchecked: unchecked}})
	if err != nil { // only numbers, strings and a time: cannot happen
		panic(fmt.Sprintf("availmon: encoding the end of a snapshot: %v", err))
	}
	return b
}

// eventMessage encodes e as it is sent on /api/ws.
func eventMessage(e Event) []byte {
	msg := wsMessage{Type: e.Type, Timestamp: jsontime.Time(e.Time)}
	switch e.Type {
	case EventStatusUpdate:
		d := wsStatusData{App: e.App, Status: e.Status, Location: e.Location}
		if e.PreviousStatus != "" {
			d.PreviousStatus = &e.PreviousStatus
		}
		msg.Data = d
	case EventConfigUpdate:
		if e.Change != nil {
			msg.Data = changeData(e.Change)
			break
		}
		msg.Data = wsConfigData{ScrapeInterval: e.Interval, PreviousInterval: e.PreviousInterval}
	case EventOutageStart, EventOutageEnd:
		if e.Outage != nil {
			msg.Data = outageData(e.Outage, e.Location)
			break
		}
		msg.Data = wsOutageData{}
	case EventObjectiveState:
		var d wsObjectiveData
		if o := e.Objective; o != nil {
			d = wsObjectiveData{Objective: o.Name, State: o.State, PreviousState: o.PreviousState}
		}
		msg.Data = d
	default:
		msg.Data = wsSystemData{Event: e.Name, Backend: e.Backend}
	}
	b, err := marshal(msg)
	if err != nil { // only strings and times: cannot happen
		panic(fmt.Sprintf("availmon: encoding an event: %v", err))
	}
	return b
}

// parseWSFilter reads ?apps=a,b&locations=x,y (each may repeat).
func (m *Monitor) parseWSFilter(r *http.Request) (eventFilter, error) {
	var f eventFilter
	q := r.URL.Query() // onlyParams has refused other parameters
	list := func(key string, known func(string) bool) (map[string]bool, error) {
		vals, ok := q[key]
		if !ok {
			return nil, nil
		}
		set := map[string]bool{}
		var unknown []string
		for _, v := range vals {
			for name := range strings.SplitSeq(v, ",") {
				name = strings.TrimSpace(name)
				switch {
				case name == "":
				case !known(name):
					unknown = append(unknown, fmt.Sprintf("%q", name))
				default:
					set[name] = true
				}
			}
		}
		if len(unknown) > 0 {
			return nil, validationError(fmt.Sprintf("unknown %s in the filter", key), "not configured: "+strings.Join(unknown, ", "))
		}
		if len(set) == 0 {
			return nil, validationError(fmt.Sprintf("the %s filter is empty", key), "give one or more comma-separated names, or leave the parameter out")
		}
		return set, nil
	}
	var err error
	p := m.snap.Load().p
	if f.apps, err = list("apps", func(n string) bool { return hasKey(p.appIndex, n) }); err != nil {
		return f, err
	}
	if f.locations, err = list("locations", func(n string) bool { return hasKey(p.locIndex, n) }); err != nil {
		return f, err
	}
	return f, nil
}

// wsHub counts the clients of /api/ws and tells why they left. The events
// themselves fan out through the monitor's event log: every client reads it
// at its own pace, so the scrape loop never waits for one.
type wsHub struct {
	maxClients   int
	pingInterval time.Duration
	writeTimeout time.Duration
	origins      []string

	mu      sync.Mutex
	clients int
	slow    int           // closed for being too slow, for tests and logs
	left    chan struct{} // closed when a client leaves; nil when nobody waits
}

func (h *wsHub) join(max int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.clients >= max {
		return false
	}
	h.clients++
	return true
}

func (h *wsHub) leave(slow bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.clients--
	if slow {
		h.slow++
	}
	if h.left != nil {
		close(h.left)
		h.left = nil
	}
}

func (h *wsHub) counts() (clients, slow int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.clients, h.slow
}

// waitIdle waits until every client has left, at most timeout, and reports
// whether they did.
func (h *wsHub) waitIdle(timeout time.Duration) bool {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		h.mu.Lock()
		if h.clients == 0 {
			h.mu.Unlock()
			return true
		}
		if h.left == nil {
			h.left = make(chan struct{})
		}
		left := h.left
		h.mu.Unlock()
		select {
		case <-left:
		case <-t.C:
			return false
		}
	}
}

// checkHandshake refuses, in the API's error envelope, the handshakes that
// websocket.Accept would refuse in plain text: another protocol version, no
// key, or a browser page of another origin than the allowed ones.
func (m *Monitor) checkHandshake(r *http.Request) error {
	if v := r.Header.Get("Sec-WebSocket-Version"); v != "13" {
		return validationError("unsupported WebSocket version", fmt.Sprintf("Sec-WebSocket-Version is %q; only 13 is supported", v))
	}
	if r.Header.Get("Sec-WebSocket-Key") == "" {
		return validationError("the WebSocket handshake has no Sec-WebSocket-Key")
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil // not a browser
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return validationError("the Origin header is not a URL", fmt.Sprintf("Origin: %q", origin))
	}
	if strings.EqualFold(u.Host, r.Host) {
		return nil
	}
	for _, p := range m.ws.origins {
		if ok, _ := path.Match(strings.ToLower(p), strings.ToLower(u.Host)); ok {
			return nil
		}
	}
	return &apiError{status: http.StatusForbidden, code: codeForbidden,
		message: "WebSocket connections from this origin are not allowed",
		details: []string{fmt.Sprintf("origin %q is neither this host (%q) nor in the allowed origins", u.Host, r.Host)}}
}

func isUpgrade(r *http.Request) bool {
	return headerToken(r.Header, "Connection", "upgrade") && headerToken(r.Header, "Upgrade", "websocket")
}

func headerToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// serveWS streams events: first the current state of every (filtered) app
// checked so far as status_update messages, then the snapshot_complete
// system_event, then every event after that snapshot, in order.
func (m *Monitor) serveWS(w http.ResponseWriter, r *http.Request) {
	filter, err := m.parseWSFilter(r)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	if !isUpgrade(r) {
		w.Header().Set("Upgrade", "websocket")
		m.writeError(w, r, &apiError{status: http.StatusUpgradeRequired, code: codeValidation,
			message: "this endpoint is a WebSocket", details: []string{"connect with a WebSocket client (Connection: Upgrade, Upgrade: websocket)"}})
		return
	}
	if err := m.checkHandshake(r); err != nil {
		m.writeError(w, r, err)
		return
	}
	if m.run.stopping.Load() {
		m.writeError(w, r, &apiError{status: http.StatusServiceUnavailable, code: codeServiceUnavailable,
			message: "the monitor is shutting down"})
		return
	}
	if !m.ws.join(m.ws.maxClients) {
		m.writeError(w, r, &apiError{status: http.StatusServiceUnavailable, code: codeServiceUnavailable,
			message: "too many WebSocket clients", details: []string{fmt.Sprintf("at most %d at once; try again later", m.ws.maxClients)}})
		return
	}
	slow := false
	defer func() { m.ws.leave(slow) }()

	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: m.ws.origins})
	if err != nil {
		m.log.Info("websocket upgrade failed", "remote", r.RemoteAddr, "err", err)
		return // Accept has answered
	}
	defer c.CloseNow()
	// Clients send nothing; CloseRead answers pings and close frames, and
	// ends ctx when the client goes away.
	ctx := c.CloseRead(r.Context())
	slow, err = m.stream(ctx, c, filter)
	switch {
	case err == nil:
	case slow:
		m.log.Warn("websocket client closed: too slow", "remote", r.RemoteAddr, "err", err)
	case ctx.Err() == nil:
		m.log.Info("websocket client ended", "remote", r.RemoteAddr, "err", err)
	}
}

// stream writes the snapshot, its end and then the events until the client
// leaves, falls behind, or the monitor shuts down.
func (m *Monitor) stream(ctx context.Context, c *websocket.Conn, filter eventFilter) (slow bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	var unanswered atomic.Bool // a ping went unanswered: the client stopped reading
	wg.Go(func() { m.keepAlive(ctx, c, cancel, &unanswered) })

	write := func(msg []byte) error {
		wctx, wcancel := context.WithTimeout(ctx, m.ws.writeTimeout)
		defer wcancel()
		err := c.Write(wctx, websocket.MessageText, msg)
		if err != nil && wctx.Err() != nil && ctx.Err() == nil {
			slow = true // the client's buffers are full: it stopped reading
			return fmt.Errorf("%s: %w", wsReasonStalled, err)
		}
		return err
	}

	var werr error
	defer m.events.wantMessages()()
	err = m.follow(ctx, filter, func(e *Event, msg []byte) bool {
		if msg == nil {
			msg = eventMessage(*e)
		}
		werr = write(msg)
		return werr == nil
	}, func(s *snapshot, sent, unchecked int) bool {
		werr = write(snapshotMessage(s.made, sent, unchecked))
		return werr == nil
	})
	switch {
	case unanswered.Load():
		return true, errors.New(wsReasonStalled)
	case errors.Is(err, errStopped):
		return slow, werr
	case errors.Is(err, ErrEventsLost):
		c.Close(websocket.StatusPolicyViolation, wsReasonSlow)
		return true, errors.New(wsReasonSlow)
	case err == nil: // the shutdown event was the last message
		return false, c.Close(websocket.StatusNormalClosure, wsReasonShutdown)
	}
	return false, err
}

// keepAlive pings the client every ping interval; a client that does not
// answer within the write timeout is cut off, and marked unanswered: a
// client that stopped reading is as slow whether a ping or an event finds
// it so.
func (m *Monitor) keepAlive(ctx context.Context, c *websocket.Conn, cancel context.CancelFunc, unanswered *atomic.Bool) {
	t := time.NewTicker(m.ws.pingInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, pcancel := context.WithTimeout(ctx, m.ws.writeTimeout)
		err := c.Ping(pctx)
		timedOut := pctx.Err() != nil && ctx.Err() == nil
		pcancel()
		if err != nil {
			unanswered.Store(timedOut)
			cancel()
			return
		}
	}
}

// originPatterns is how the /api/ws origin check reads the configured host
// patterns: a pattern without a port matches the host on any port, because
// a page's origin carries its port ("http://localhost:5555" has the host
// "localhost:5555") and "localhost" is what a user means by it. A pattern
// with a port ("localhost:5555", "*.example.com:443") matches that port
// only.
func originPatterns(patterns []string) []string {
	out := make([]string, 0, 2*len(patterns))
	for _, p := range patterns {
		out = append(out, p)
		if strings.LastIndexByte(p, ':') <= strings.LastIndexByte(p, ']') { // no port; "]" ends an IPv6 address
			out = append(out, p+":*")
		}
	}
	return out
}
