package availmon

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/availmon/availmon/internal/cachedbody"
	"github.com/availmon/availmon/internal/jsontime"
	"github.com/prometheus/common/model"
)

// Error codes of the interface.
const (
	codeValidation         = "VALIDATION_ERROR"
	codeNotFound           = "NOT_FOUND"
	codeInternal           = "INTERNAL_ERROR"
	codeServiceUnavailable = "SERVICE_UNAVAILABLE"
	codeInvalidSignature   = "INVALID_SIGNATURE"
	codeTimestamp          = "TIMESTAMP_ERROR"
	codeMissingAuthHeaders = "MISSING_AUTH_HEADERS"
	codeForbidden          = "FORBIDDEN"
)

// apiError is an error as the API reports it.
type apiError struct {
	status  int
	code    string
	message string
	details []string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

func validationError(message string, details ...string) *apiError {
	return &apiError{status: http.StatusBadRequest, code: codeValidation, message: message, details: details}
}

func notFoundError(message string, details ...string) *apiError {
	return &apiError{status: http.StatusNotFound, code: codeNotFound, message: message, details: details}
}

// toAPIError is the one place where Go errors become API errors with an HTTP
// status.
func toAPIError(err error) *apiError {
	var ae *apiError
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &tooLarge):
		return &apiError{status: http.StatusRequestEntityTooLarge, code: codeValidation,
			message: "request body is too large",
			details: []string{fmt.Sprintf("the body must be at most %d bytes", tooLarge.Limit)}}
	default:
		return &apiError{status: http.StatusInternalServerError, code: codeInternal,
			message: "internal server error"}
	}
}

type envelope struct {
	Data  any        `json:"data"`
	Meta  any        `json:"meta,omitempty"`
	Error *errorJSON `json:"error,omitempty"`
}

// rawJSON is data encoded ahead of time, written as it is.
type rawJSON []byte

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// jsonHeaders are the header values of every writeJSON answer, one slice
// each shared by all of them rather than one per answer: net/http only
// reads them, and nothing writes into them (each is full, so a header's
// Add appends to a copy).
var jsonHeaders = struct{ contentType, noStore, nosniff []string }{
	contentType: []string{"application/json; charset=utf-8"}[:1:1],
	noStore:     []string{"no-store"}[:1:1],
	nosniff:     []string{"nosniff"}[:1:1],
}

// writeJSON encodes v into a buffer and writes it with status in one go, so
// a failure to encode never leaves half a response. An envelope whose Data is
// rawJSON is assembled around the bytes instead of re-encoding them; those
// bytes are written where they are, not copied into the buffer, because they
// can be megabytes (/api/apps of 10,000 apps) and copying them cost a fresh
// buffer of that size per request.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= 1<<20 { // don't pin huge buffers
			bufPool.Put(buf)
		}
	}()
	var err error
	var raw rawJSON // goes between buf.Bytes()[:split] and the rest
	var split int
	if e, ok := v.(envelope); ok && e.Error == nil {
		raw, split, err = e.encode(buf)
	} else {
		if err = encodeJSON(buf, v); err == nil {
			buf.WriteByte('\n')
		}
	}
	if err != nil {
		status = http.StatusInternalServerError
		raw = nil
		buf.Reset()
		buf.WriteString(`{"data":null,"error":{"code":"INTERNAL_ERROR","message":"encoding the response failed","details":[],"request_id":""}}` + "\n")
	}
	h := w.Header()
	h["Content-Type"] = jsonHeaders.contentType
	h["Content-Length"] = []string{strconv.Itoa(buf.Len() + len(raw))}
	h["Cache-Control"] = jsonHeaders.noStore
	h["X-Content-Type-Options"] = jsonHeaders.nosniff
	w.WriteHeader(status)
	b := buf.Bytes()
	if len(raw) == 0 {
		w.Write(b) //nolint:errcheck // the client went away; nothing to do
		return
	}
	// Errors are ignored for the same reason: the client went away.
	w.Write(b[:split]) //nolint:errcheck
	w.Write(raw)       //nolint:errcheck
	w.Write(b[split:]) //nolint:errcheck
}

// encode writes the envelope into buf, except rawJSON data: that is
// returned, to be written at offset split of buf's bytes.
func (e envelope) encode(buf *bytes.Buffer) (raw rawJSON, split int, err error) {
	buf.WriteString(`{"data":`)
	split = buf.Len()
	if r, ok := e.Data.(rawJSON); ok {
		raw = r
	} else if err := encodeJSON(buf, e.Data); err != nil {
		return nil, 0, err
	}
	if e.Meta != nil {
		buf.WriteString(`,"meta":`)
		if err := encodeJSON(buf, e.Meta); err != nil {
			return nil, 0, err
		}
	}
	buf.WriteString("}\n")
	return raw, split, nil
}

// encodeJSON appends v to buf as JSON without HTML escaping (the API is
// JSON for programs, and "<signature>" reads better than
// "\u003csignature\u003e") and without the encoder's trailing newline. On
// error buf is unchanged: the encoder writes nothing it failed to encode.
func encodeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1)
	return nil
}

// marshal is json.Marshal without HTML escaping.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	err := encodeJSON(&buf, v)
	return buf.Bytes(), err
}

// writeError answers with the error envelope for err.
func (m *Monitor) writeError(w http.ResponseWriter, r *http.Request, err error) {
	ae := toAPIError(err)
	if ae.status >= 500 {
		m.log.Error("request failed", "method", r.Method, "path", clientPath(r), "err", err,
			"request_id", requestID(w))
	}
	details := ae.details
	if details == nil {
		details = []string{}
	}
	writeJSON(w, ae.status, envelope{
		Data: nil,
		Meta: metaJSON{Timestamp: jsontime.Time(m.clock.Now())},
		Error: &errorJSON{Code: ae.code, Message: ae.message, Details: details,
			RequestID: requestID(w)},
	})
}

// HeaderRequestID carries the request identifier both ways.
const HeaderRequestID = "X-Request-Id"

// withRequestID keeps the client's X-Request-Id when it is 1-64 safe
// characters, otherwise makes a new one; either way it is echoed in the
// response and in error envelopes. It lives in the response's header only,
// where requestID reads it: a copy of the request to carry it in a context
// was a third of /health's allocations.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(HeaderRequestID)
		if !validRequestID(id) {
			// Random, not secret: it ties a response to log lines.
			var b [16]byte
			binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
			binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
			id = hex.EncodeToString(b[:])
		}
		w.Header()[HeaderRequestID] = []string{id}
		next.ServeHTTP(w, r)
	})
}

func validRequestID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

// requestID is the identifier withRequestID gave the request whose
// response w writes ("" without it).
func requestID(w http.ResponseWriter) string {
	if v := w.Header()[HeaderRequestID]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// recoverer turns a panic in a handler into a 500 in the error envelope, so
// no request can take the process down.
func (m *Monitor) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if p == http.ErrAbortHandler {
				panic(p)
			}
			m.writeError(w, r, fmt.Errorf("panic: %v", p))
		}()
		next.ServeHTTP(w, r)
	})
}

// The wire shapes of the API. Field names and types follow the interface's
// tables; members it does not list (such as the unavailable counts) are
// additions the rulings allow.

// formatDuration writes d in Prometheus duration syntax ("30s", "1h30m").
func formatDuration(d time.Duration) string { return model.Duration(d).String() }

// formatUptime writes d to the second, in the form "2h30m15s".
func formatUptime(d time.Duration) string { return max(0, d).Truncate(time.Second).String() }

type coordinatesJSON struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

type appJSON struct {
	Name          string          `json:"name"`
	Location      string          `json:"location"`
	Status        Status          `json:"status"`
	LastCheck     jsontime.Time   `json:"last_check"`
	ResponseTime  *float64        `json:"response_time"`
	Coordinates   coordinatesJSON `json:"coordinates"`
	Metric        string          `json:"metric"`
	PrometheusURL string          `json:"prometheus_url"`
	Error         string          `json:"error,omitempty"`
	// Labels and Maintenance are what the operators' controls set; both are
	// left out while unset, so that the many apps without them answer short.
	Labels      map[string]string `json:"labels,omitempty"`
	Maintenance bool              `json:"maintenance,omitempty"`
}

type appDetailJSON struct {
	appJSON
	History []historyEntryJSON `json:"history"`
}

type historyEntryJSON struct {
	Timestamp    jsontime.Time `json:"timestamp"`
	Status       Status        `json:"status"`
	ResponseTime float64       `json:"response_time"`
	Error        string        `json:"error,omitempty"`
}

type listMetaJSON struct {
	Count      int           `json:"count"`
	Timestamp  jsontime.Time `json:"timestamp"`
	LastUpdate jsontime.Time `json:"last_update"`
}

type countMetaJSON struct {
	Count     int           `json:"count"`
	Timestamp jsontime.Time `json:"timestamp"`
}

type metaJSON struct {
	Timestamp jsontime.Time `json:"timestamp"`
}

type summaryMetaJSON struct {
	Timestamp jsontime.Time `json:"timestamp"`
	Period    string        `json:"period"`
}

type locationJSON struct {
	Name      string   `json:"name"`
	Latitude  float64  `json:"latitude"`
	Longitude float64  `json:"longitude"`
	AppsCount int      `json:"apps_count"`
	Apps      []string `json:"apps"`
}

type locationDetailJSON struct {
	Name      string              `json:"name"`
	Latitude  float64             `json:"latitude"`
	Longitude float64             `json:"longitude"`
	AppsCount int                 `json:"apps_count"`
	Apps      []locationAppJSON   `json:"apps"`
	Summary   locationSummaryJSON `json:"summary"`
}

type locationAppJSON struct {
	Name      string        `json:"name"`
	Status    Status        `json:"status"`
	LastCheck jsontime.Time `json:"last_check"`
}

type locationSummaryJSON struct {
	TotalApps              int      `json:"total_apps"`
	UpCount                int      `json:"up_count"`
	DownCount              int      `json:"down_count"`
	UnavailableCount       int      `json:"unavailable_count"`
	MaintenanceCount       int      `json:"maintenance_count,omitempty"`
	AvailabilityPercentage *float64 `json:"availability_percentage"`
}

type configJSON struct {
	ScrapeInterval string   `json:"scrape_interval"`
	ScrapeTimeout  string   `json:"scrape_timeout"`
	LogLevel       string   `json:"log_level"`
	TotalApps      int      `json:"total_apps"`
	TotalLocations int      `json:"total_locations"`
	Version        string   `json:"version"`
	Uptime         string   `json:"uptime"`
	PrometheusURLs []string `json:"prometheus_urls"`
	HistorySize    int      `json:"history_size"`
	MaxParallel    int      `json:"max_parallel"`
}

type intervalUpdateJSON struct {
	Interval         string        `json:"interval"`
	PreviousInterval string        `json:"previous_interval"`
	UpdatedAt        jsontime.Time `json:"updated_at"`
}

type healthJSON struct {
	Status    string        `json:"status"`
	Timestamp jsontime.Time `json:"timestamp"`
	Uptime    string        `json:"uptime"`
	Version   string        `json:"version"`
}

type statusJSON struct {
	SystemStatus            string        `json:"system_status"`
	OverallAvailability     *float64      `json:"overall_availability"`
	TotalApplications       int           `json:"total_applications"`
	ApplicationsUp          int           `json:"applications_up"`
	ApplicationsDown        int           `json:"applications_down"`
	ApplicationsUnavailable int           `json:"applications_unavailable"`
	ApplicationsMaintenance int           `json:"applications_maintenance,omitempty"`
	TotalLocations          int           `json:"total_locations"`
	LastUpdate              jsontime.Time `json:"last_update"`
	PrometheusConnectivity  string        `json:"prometheus_connectivity"`
	// Discovery is left out when no discovery rule is configured.
	Discovery *discoveryStatusJSON `json:"discovery,omitempty"`

	// Storage tells how the saves of a monitor with a Store go.
	Storage *storageJSON `json:"storage,omitempty"`

	// Backfill tells how far the backfill from the backends' past has come.
	Backfill *backfillStatusJSON `json:"backfill,omitempty"`
}

// /api/status is polled like /health, and its answer (a dozen members,
// the storage's and the backfill's among them) encoded by encoding/json's
// reflection on every request would hold it under half of a static
// server's rate at 100,000 apps. What it says changes with the snapshot,
// the system status, a save or the backfill's progress: the encoded
// answer is kept with what it was made from (cachedbody.Last), and made
// again when any of that differs.

// statusKey is what an /api/status answer is made from, comparable: the
// storage's and backfill's members are copied with their pointers
// followed, so that equal keys mean equal answers. A member added to
// either that is a slice or map stops this compiling; one that is a
// pointer only makes the answer be made again more often.
type statusKey struct {
	snap     uint64 // the snapshot's seq: its pointer would keep it, and its whole record, alive while the answer is kept
	system   string
	storage  statusStorageKey
	backfill statusBackfillKey
}

type statusStorageKey struct {
	present bool
	v       storageJSON // LastSaveError cleared: hasErr and errText hold it
	hasErr  bool
	errText string
}

type statusBackfillKey struct {
	present  bool
	v        backfillStatusJSON // From and To cleared: from and to hold them
	from, to optionalTime
}

func newStatusKey(s *snapshot, system string, storage *storageJSON, backfill *backfillStatusJSON) statusKey {
	return statusKey{snap: s.seq, system: system, storage: newStatusStorageKey(storage), backfill: newStatusBackfillKey(backfill)}
}

func newStatusStorageKey(s *storageJSON) statusStorageKey {
	if s == nil {
		return statusStorageKey{}
	}
	k := statusStorageKey{present: true, v: *s}
	k.v.LastSaveError = nil
	if s.LastSaveError != nil {
		k.hasErr, k.errText = true, *s.LastSaveError
	}
	return k
}

func newStatusBackfillKey(b *backfillStatusJSON) statusBackfillKey {
	if b == nil {
		return statusBackfillKey{}
	}
	k := statusBackfillKey{present: true, v: *b}
	k.v.From, k.v.To = nil, nil
	k.from, k.to = newOptionalTime(b.From), newOptionalTime(b.To)
	return k
}

// optionalTime is a *jsontime.Time's value, comparable.
type optionalTime struct {
	present bool
	t       jsontime.Time
}

func newOptionalTime(t *jsontime.Time) optionalTime {
	if t == nil {
		return optionalTime{}
	}
	return optionalTime{true, *t}
}

// statusCache holds the last /api/status answer.
type statusCache struct{ last cachedbody.Last[statusKey] }

// write answers with the status that data says and key sums up, from the
// last answer when its key is equal.
func (c *statusCache) write(w http.ResponseWriter, key statusKey, data *statusJSON) {
	a, ok := c.last.Get(key, func() ([]byte, bool) {
		var buf bytes.Buffer
		raw, _, err := envelope{Data: data}.encode(&buf)
		return buf.Bytes(), err == nil && raw == nil
	})
	if !ok {
		writeJSON(w, http.StatusOK, envelope{Data: data})
		return
	}
	h := w.Header()
	h["Content-Type"] = jsonHeaders.contentType
	h["Content-Length"] = a.Length()
	h["Cache-Control"] = jsonHeaders.noStore
	h["X-Content-Type-Options"] = jsonHeaders.nosniff
	w.WriteHeader(http.StatusOK)
	w.Write(a.Body()) //nolint:errcheck // the client went away; nothing to do
}

type statusHistoryJSON struct {
	Period     string          `json:"period"`
	Resolution string          `json:"resolution"`
	DataPoints []dataPointJSON `json:"data_points"`
}

type dataPointJSON struct {
	Timestamp           jsontime.Time `json:"timestamp"`
	OverallAvailability *float64      `json:"overall_availability"`
	AppsUp              int           `json:"apps_up"`
	AppsDown            int           `json:"apps_down"`
	AppsUnavailable     int           `json:"apps_unavailable"`
}

type summaryJSON struct {
	TotalRequests       int64                     `json:"total_requests"`
	TotalErrors         int64                     `json:"total_errors"`
	AverageResponseTime *float64                  `json:"average_response_time"`
	UptimePercentage    *float64                  `json:"uptime_percentage"`
	Apps                []appSummaryJSON          `json:"apps_summary"`
	Locations           []locationSummaryItemJSON `json:"locations_summary"`
}

type appSummaryJSON struct {
	Name            string   `json:"name"`
	Status          Status   `json:"status"`
	Uptime24h       *float64 `json:"uptime_24h"`
	AvgResponseTime *float64 `json:"avg_response_time"`
}

type locationSummaryItemJSON struct {
	Name            string   `json:"name"`
	AppsUp          int      `json:"apps_up"`
	AppsDown        int      `json:"apps_down"`
	AppsUnavailable int      `json:"apps_unavailable"`
	AppsMaintenance int      `json:"apps_maintenance,omitempty"`
	Availability    *float64 `json:"availability"`
}

// errorJSON is the `error` member of the error envelope.
type errorJSON struct {
	Code      string   `json:"code"`
	Message   string   `json:"message"`
	Details   []string `json:"details"`
	RequestID string   `json:"request_id"`
}
