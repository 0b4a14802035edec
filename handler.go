package availmon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/availmon/availmon/internal/jsontime"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/common/model"
)

// MaxBodyBytes bounds the body of POST /api/scrape-interval.
const MaxBodyBytes = 64 << 10

// Handler returns the HTTP API of the monitor: every endpoint of the
// interface, relative to wherever it is mounted (http.StripPrefix, chi's
// Mount). Mounted under a prefix, it still verifies signatures over the path
// the client sent (prefix included) and counts requests under its own route
// patterns. It can be called more than once; the handlers share the
// monitor's state.
func (m *Monitor) Handler() http.Handler {
	r := chi.NewRouter()
	r.Use(withRequestID, m.countRequests, m.recoverer, middleware.GetHead)
	r.NotFound(func(w http.ResponseWriter, req *http.Request) {
		m.writeError(w, req, notFoundError("no such endpoint", fmt.Sprintf("%s %s is not part of the API", req.Method, clientPath(req))))
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, req *http.Request) {
		allow := allowedMethods(r, req)
		w.Header().Set("Allow", strings.Join(allow, ", "))
		m.writeError(w, req, &apiError{status: http.StatusMethodNotAllowed, code: codeValidation,
			message: fmt.Sprintf("method %s is not allowed here", req.Method),
			details: []string{"allowed methods: " + strings.Join(allow, ", ")}})
	})

	r.Get("/health", m.health)
	r.Get("/metrics", m.serveMetrics)
	// Writes are always authenticated (refused without an Authenticator,
	// unless AllowUnauthenticatedWrites); reads under /api only with
	// ProtectReads. /health and /metrics never.
	r.With(m.requireAuth).Post("/api/scrape-interval", m.postInterval)
	if m.api.reload != nil {
		r.With(m.requireAuth).Post("/-/reload", m.postReload)
	}
	reads := chi.Router(r)
	if m.api.protectReads {
		reads = r.With(m.requireAuth)
	}
	for _, rt := range m.readRoutes() {
		reads.With(m.onlyParams(rt.params)).Get(rt.pattern, rt.handler)
	}
	m.controlRoutes(r, reads)
	return r
}

// allowedMethods lists the methods the router has for the request's path.
func allowedMethods(routes chi.Routes, r *http.Request) []string {
	path := r.URL.RawPath
	if rctx := chi.RouteContext(r.Context()); rctx != nil && rctx.RoutePath != "" {
		path = rctx.RoutePath
	}
	if path == "" {
		path = r.URL.Path
	}
	var allow []string
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if routes.Match(chi.NewRouteContext(), method, path) {
			allow = append(allow, method)
			if method == http.MethodGet {
				allow = append(allow, http.MethodHead)
			}
		}
	}
	return allow
}

// pathName returns the {name} path parameter, decoded.
func pathName(r *http.Request) (string, error) {
	name := chi.URLParam(r, "name")
	if r.URL.RawPath == "" {
		return name, nil // chi routed on the decoded path
	}
	dec, err := url.PathUnescape(name)
	if err != nil {
		return "", validationError("the name in the path is not valid URL encoding", err.Error())
	}
	return dec, nil
}

func (m *Monitor) now() jsontime.Time { return jsontime.Time(m.clock.Now()) }

func (m *Monitor) health(w http.ResponseWriter, r *http.Request) {
	now := m.clock.Now()
	out := healthJSON{Status: "healthy", Timestamp: jsontime.Time(now),
		Uptime: formatUptime(now.Sub(m.run.started)), Version: m.cfg.version}
	status := http.StatusOK
	if m.stalled() {
		out.Status, status = "unhealthy", http.StatusServiceUnavailable
	}
	writeHealth(w, status, &out)
}

func (m *Monitor) listApps(w http.ResponseWriter, r *http.Request) {
	s := m.snap.Load()
	if r.URL.RawQuery != "" {
		m.listAppsFiltered(w, r, s)
		return
	}
	m.writeEncoded(w, r, s.appsData(),
		listMetaJSON{Count: len(s.apps), Timestamp: jsontime.Time(s.made), LastUpdate: jsontime.Time(s.at)})
}

func (m *Monitor) getApp(w http.ResponseWriter, r *http.Request) {
	name, err := pathName(r)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	s := m.snap.Load()
	i, ok := s.p.appIndex[name]
	if !ok {
		m.writeError(w, r, notFoundError("application not found", fmt.Sprintf("no application is named %q", name)))
		return
	}
	entries := s.history[i].List(s.rts)
	// A cycle writes the history before it publishes the snapshot that
	// reflects it: leave out checks this snapshot does not show yet, so the
	// app's status and its last history entry are one view.
	if !s.apps[i].checked() {
		entries = nil
	}
	for n := len(entries); n > 0 && entries[n-1].At > s.apps[i].lastCheck; n-- {
		entries = entries[:n-1]
	}
	hist := make([]historyEntryJSON, len(entries))
	for j, e := range entries {
		hist[j] = historyEntryJSON{Timestamp: jsontime.Time(time.Unix(0, e.At)), Status: statusOfHist(e.Status),
			ResponseTime: seconds(e.RT), Error: e.Err}
	}
	writeJSON(w, http.StatusOK, envelope{
		Data: appDetailJSON{appJSON: s.appJSON(i), History: hist},
		Meta: metaJSON{Timestamp: m.now()},
	})
}

func (m *Monitor) listLocations(w http.ResponseWriter, r *http.Request) {
	s := m.snap.Load()
	m.writeEncoded(w, r, s.locationsData(),
		countMetaJSON{Count: len(s.p.locations), Timestamp: jsontime.Time(s.made)})
}

func (m *Monitor) getLocation(w http.ResponseWriter, r *http.Request) {
	name, err := pathName(r)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	s := m.snap.Load()
	li, ok := s.p.locIndex[name]
	if !ok {
		m.writeError(w, r, notFoundError("location not found", fmt.Sprintf("no location is named %q", name)))
		return
	}
	m.writeEncoded(w, r, s.locationData(li), metaJSON{Timestamp: jsontime.Time(s.made)})
}

func (m *Monitor) getConfig(w http.ResponseWriter, r *http.Request) {
	now := m.clock.Now()
	iv := m.interval.Load()
	p := m.snap.Load().p
	urls := []string{}
	for _, b := range p.backends {
		if b.URL != "" {
			urls = append(urls, b.URL)
		}
	}
	writeJSON(w, http.StatusOK, envelope{
		Data: configJSON{
			ScrapeInterval: iv.text,
			ScrapeTimeout:  formatDuration(m.cycleTimeout(iv.d)),
			LogLevel:       strings.ToLower(m.cfg.logLevel.String()),
			TotalApps:      len(p.apps),
			TotalLocations: len(p.locations),
			Version:        m.cfg.version,
			Uptime:         formatUptime(now.Sub(m.run.started)),
			PrometheusURLs: urls,
			HistorySize:    m.cfg.historySize,
			MaxParallel:    m.cfg.maxParallel,
		},
		Meta: metaJSON{Timestamp: jsontime.Time(now)},
	})
}

func (m *Monitor) postInterval(w http.ResponseWriter, r *http.Request) {
	d, text, err := parseIntervalBody(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	prev, err := m.setInterval(d, text)
	if err != nil {
		m.writeError(w, r, validationError("invalid interval", err.Error(), intervalAccepted))
		return
	}
	now := m.now()
	writeJSON(w, http.StatusOK, envelope{
		Data: intervalUpdateJSON{Interval: text, PreviousInterval: prev.text, UpdatedAt: now},
		Meta: metaJSON{Timestamp: now},
	})
}

var intervalAccepted = fmt.Sprintf("accepted: a Prometheus duration such as 500ms, 30s, 5m or 1h30m, between %s and %s",
	formatDuration(MinInterval), formatDuration(MaxInterval))

// bodyReadError is the API's error for a body that could not be read. Past
// the size limit that is 413; anything else (a bad chunk size, fewer bytes
// than the Content-Length, the server's read timeout, a client that went
// away) is the client's doing: 400, not an internal error worth a log line.
func bodyReadError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return err
	}
	why := err.Error()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		why = "the body did not arrive within the server's read timeout"
	}
	return validationError("the request body could not be read", why)
}

// intervalMember returns the value of the one member "interval" of the JSON
// object raw. It reads the object token by token rather than into a map,
// which would keep the last of two "interval" members and hide the first.
func intervalMember(raw []byte) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		if err == nil {
			err = fmt.Errorf("it starts with %v", tok)
		}
		return nil, fmt.Errorf("the body is not a JSON object: %v", err)
	}
	var value json.RawMessage
	seen := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("the body is not a JSON object: %v", err)
		}
		key := tok.(string) // inside an object the decoder yields only string keys
		switch {
		case key != "interval":
			return nil, fmt.Errorf("unknown member %q", key)
		case seen:
			return nil, errors.New(`the member "interval" is given more than once`)
		}
		seen = true
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("the body is not a JSON object: %v", err)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, fmt.Errorf("the body is not a JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("the body has data after the JSON object")
	}
	if !seen {
		return nil, errors.New(`the member "interval" is missing`)
	}
	return value, nil
}

// parseIntervalBody reads {"interval": "<duration>"} and nothing else.
func parseIntervalBody(body io.Reader) (time.Duration, string, error) {
	raw, err := io.ReadAll(body)
	if err != nil {
		return 0, "", bodyReadError(err)
	}
	invalid := func(why string) error {
		return validationError("invalid request body", why,
			`expected a JSON object with one string member "interval", e.g. {"interval": "30s"}`)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return 0, "", invalid("the body is empty")
	}
	rawInterval, err := intervalMember(raw)
	if err != nil {
		return 0, "", invalid(err.Error())
	}
	var text string
	if err := json.Unmarshal(rawInterval, &text); err != nil {
		return 0, "", invalid(`"interval" must be a string`)
	}
	d, err := model.ParseDuration(text)
	if err != nil {
		return 0, "", validationError("invalid interval", fmt.Sprintf("%q is not a duration", text), intervalAccepted)
	}
	if err := checkInterval(time.Duration(d)); err != nil {
		return 0, "", validationError("invalid interval", err.Error(), intervalAccepted)
	}
	return time.Duration(d), text, nil
}

func (m *Monitor) getStatus(w http.ResponseWriter, r *http.Request) {
	s := m.snap.Load()
	system := "healthy"
	switch {
	case m.stalled():
		system = "unhealthy"
	case s.connectivity != connConnected || len(s.discovery.failing) > 0:
		system = "degraded"
	}
	storage := m.storageStatus()
	if system == "healthy" && storage != nil && storage.ConsecutiveFailures > 0 {
		system = "degraded" // the state a restart would find grows older
	}
	backfill := m.bf.status()
	m.statusAnswer.write(w, newStatusKey(s, system, storage, backfill), &statusJSON{
		SystemStatus:            system,
		OverallAvailability:     s.availability,
		TotalApplications:       len(s.apps),
		ApplicationsUp:          s.up,
		ApplicationsDown:        s.down,
		ApplicationsUnavailable: s.unavailable,
		ApplicationsMaintenance: s.maintenance,
		TotalLocations:          len(s.p.locations),
		LastUpdate:              jsontime.Time(s.at),
		PrometheusConnectivity:  s.connectivity,
		Discovery:               s.discovery.json(),
		Storage:                 storage,
		Backfill:                backfill,
	})
}

// The periods and resolutions of /api/status/history, in the order the
// error message lists them.
var (
	historyPeriods     = []string{"1h", "24h", "7d", "30d"}
	historyResolutions = []string{"1m", "5m", "1h"}
)

func (m *Monitor) getHistory(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		m.writeError(w, r, validationError("invalid query string", err.Error()))
		return
	}
	period, err := queryChoice(q, "period", "24h", historyPeriods)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	res, err := queryChoice(q, "resolution", "5m", historyResolutions)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	pd, _ := model.ParseDuration(period)
	rd, _ := model.ParseDuration(res)
	now := m.clock.Now()
	a := m.snap.Load().historyAns.get(m.hist, now, period, res, time.Duration(pd), time.Duration(rd))
	m.writeEncoded(w, r, a.body, countMetaJSON{Count: a.count, Timestamp: jsontime.Time(a.made)})
}

// queryChoice returns the single value of key, which must be one of allowed.
func queryChoice(q url.Values, key, def string, allowed []string) (string, error) {
	vs, ok := q[key]
	if !ok {
		return def, nil
	}
	accepted := fmt.Sprintf("allowed values: %s (default %s)", strings.Join(allowed, ", "), def)
	if len(vs) != 1 {
		return "", validationError(fmt.Sprintf("invalid %s", key), fmt.Sprintf("%s is given %d times", key, len(vs)), accepted)
	}
	for _, a := range allowed {
		if vs[0] == a {
			return a, nil
		}
	}
	return "", validationError(fmt.Sprintf("invalid %s", key), fmt.Sprintf("%s %q is not supported", key, vs[0]), accepted)
}

func (m *Monitor) getSummary(w http.ResponseWriter, r *http.Request) {
	s := m.snap.Load()
	m.writeEncoded(w, r, s.summaryData(), summaryMetaJSON{Timestamp: jsontime.Time(s.made), Period: "24h"})
}

// readRoute is a GET endpoint under /api with the query parameters it
// accepts. Handlers parse their own parameters; onlyParams refuses the
// others, so a typo (?perod=7d) is an error rather than a silent default.
type readRoute struct {
	pattern string
	params  []string // nil: none; "label.*" accepts every name starting "label."
	handler http.HandlerFunc
}

// readRoutes lists the read endpoints and what each accepts. A handler that
// learns a new parameter adds it here.
func (m *Monitor) readRoutes() []readRoute {
	return []readRoute{
		{"/api/apps", []string{"location", "status", "label.*"}, m.listApps},
		{"/api/apps/{name}", nil, m.getApp},
		{"/api/locations", nil, m.listLocations},
		{"/api/locations/{name}", nil, m.getLocation},
		{"/api/config", nil, m.getConfig},
		{"/api/status", nil, m.getStatus},
		{"/api/status/history", []string{"period", "resolution"}, m.getHistory},
		{"/api/metrics/summary", nil, m.getSummary},
		{"/api/ws", []string{"apps", "locations"}, m.serveWS},
		{"/api/availability", availParams, m.getAvailability},
		{"/api/apps/{name}/outages", []string{"from", "to"}, m.appOutages},
		{"/api/locations/{name}/outages", []string{"from", "to"}, m.locationOutages},
		{"/api/services/{name}/outages", []string{"from", "to"}, m.serviceOutages},
		{"/api/reports/{period}", reportParams, m.getReport},
		{"/api/objectives", []string{"state", "label.*"}, m.listObjectives},
		{"/api/objectives/{name}", nil, m.getObjective},
	}
}

// onlyParams refuses, with 400 VALIDATION_ERROR naming the accepted ones, a
// request whose query string is malformed or has a parameter not in params.
func (m *Monitor) onlyParams(params []string) func(http.Handler) http.Handler {
	accepted := "accepted query parameters: none"
	if len(params) > 0 {
		accepted = "accepted query parameters: " + strings.Join(params, ", ")
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.RawQuery != "" {
				if err := checkParams(r.URL.RawQuery, params, accepted); err != nil {
					m.writeError(w, r, err)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// acceptedParam reports whether key is one of params, or starts with the
// prefix of a params entry ending in ".*".
func acceptedParam(params []string, key string) bool {
	for _, p := range params {
		if p == key {
			return true
		}
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasSuffix(prefix, ".") &&
			len(key) > len(prefix) && strings.HasPrefix(key, prefix) {
			return true
		}
	}
	return false
}

func checkParams(rawQuery string, params []string, accepted string) error {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return validationError("invalid query string", err.Error(), accepted)
	}
	var unknown []string
	for key := range q {
		if !acceptedParam(params, key) {
			unknown = append(unknown, fmt.Sprintf("%q", key))
		}
	}
	switch len(unknown) {
	case 0:
		return nil
	case 1:
		return validationError("unknown query parameter "+unknown[0], accepted)
	default:
		slices.Sort(unknown)
		return validationError("unknown query parameters "+strings.Join(unknown, ", "), accepted)
	}
}

// controlRoutes adds the endpoints of the operators' controls: reads on
// reads (guarded when ProtectReads is set), writes on r with requireAuth.
func (m *Monitor) controlRoutes(r, reads chi.Router) {
	reads.With(m.onlyParams(nil)).Get("/api/services", m.listServices)
	reads.With(m.onlyParams(nil)).Get("/api/services/{name}", m.getService)
	// Badges check their own query (?value=...).
	reads.Get("/api/badges/apps/{name}", m.badgeHandler(badgeApp))
	reads.Get("/api/badges/locations/{name}", m.badgeHandler(badgeLocation))
	reads.Get("/api/badges/services/{name}", m.badgeHandler(badgeService))
	reads.With(m.onlyParams(nil)).Get("/api/maintenance", m.listMaintenance)
	reads.With(m.onlyParams(nil)).Get("/api/maintenance/{name}", m.getMaintenance)
	r.With(m.requireAuth).Post("/api/maintenance", m.postMaintenance)
	r.With(m.requireAuth).Delete("/api/maintenance/{name}", m.deleteMaintenance)
}

// The handler may be mounted under a prefix (http.StripPrefix, chi's
// Mount). What a client reads about its request (a 404's details, the
// signed path) is the path it sent; what the metrics count is the route of
// this handler, without the mount's prefix.

// clientPath is the decoded path the client asked for: the path of the
// request URI, not r.URL.Path, which a router may have shortened.
func clientPath(r *http.Request) string {
	uri := r.RequestURI
	switch {
	case uri == "":
		return r.URL.Path // a request made in-process, not received
	case uri[0] == '/' && strings.IndexAny(uri, "%?") < 0:
		return uri
	}
	if u, err := url.ParseRequestURI(uri); err == nil {
		return u.Path
	}
	return r.URL.Path
}

// routeMark remembers how many route patterns the routers in front of
// this handler had matched when it was entered.
func routeMark(r *http.Request) int {
	if rctx := chi.RouteContext(r.Context()); rctx != nil {
		return len(rctx.RoutePatterns)
	}
	return 0
}

// routeLabel is the pattern this handler's router matched for r, without
// what the routers in front of it (mark patterns) matched: "/api/apps/{name}"
// whether the handler is mounted or not. A request that matched no route
// is routeUnmatched.
func routeLabel(r *http.Request, mark int) string {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil || len(rctx.RoutePatterns) <= mark {
		return routeUnmatched
	}
	p := strings.Join(rctx.RoutePatterns[mark:], "")
	for strings.Contains(p, "/*/") {
		p = strings.ReplaceAll(p, "/*/", "/")
	}
	if p != "/" {
		p = strings.TrimSuffix(strings.TrimSuffix(p, "//"), "/")
	}
	if p == "" || p == "/*" {
		return routeUnmatched
	}
	return p
}
