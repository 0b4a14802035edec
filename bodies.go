package availmon

import (
	"bytes"
	"github.com/availmon/availmon/internal/cachedbody"
	"github.com/availmon/availmon/internal/jsontime"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Every answer body a snapshot caches lives here: a snapshot's answers are
// encoded once and served as ready bytes (with their gzip form and ETag) to
// every request until the next cycle publishes a new snapshot, so reads
// cost a copy and never wait on the cycle.

// lazyBody is an envelope's fixed part, encoded on first use from what v
// returns.
type lazyBody struct {
	once sync.Once
	b    *cachedbody.Body
}

func (l *lazyBody) get(v func() any) *cachedbody.Body {
	l.once.Do(func() { l.b = cachedbody.New(envelopeHead(v())) })
	return l.b
}

// getLarge is get for the large answers, encoded by largeEnvelope.
func (l *lazyBody) getLarge(v func() any) *cachedbody.Body {
	l.once.Do(func() { l.b = largeEnvelope(v()) })
	return l.b
}

// lazyJSON holds an encoding computed on first use, for answers served
// through writeJSON.
type lazyJSON struct {
	once sync.Once
	b    []byte
}

func (l *lazyJSON) get(v func() any) []byte {
	l.once.Do(func() {
		b, err := marshal(v())
		if err != nil {
			// Only our own types are encoded here; failing to encode them
			// is a bug, not a request error.
			panic("availmon: encoding snapshot: " + err.Error())
		}
		l.b = b
	})
	return l.b
}

// envelopeHead is the start of a success envelope around data encoded from
// v: everything up to where the meta member goes.
func envelopeHead(v any) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"data":`)
	if err := encodeJSON(&buf, v); err != nil {
		// Only our own types are encoded here; failing to encode them is a
		// bug, not a request error.
		panic("availmon: encoding snapshot: " + err.Error())
	}
	return cachedbody.Trimmed(buf.Bytes())
}

// writeEncoded answers with an envelope whose data is b's ready bytes and
// whose meta follows them (cachedbody's ServeJSON). meta must be the same
// for every request of b (its timestamp is the snapshot's, not the
// request's): the answer's strong ETag covers it.
func (m *Monitor) writeEncoded(w http.ResponseWriter, r *http.Request, b *cachedbody.Body, meta any) {
	// Encoded for the first request of b with this meta, and kept for the
	// others: meta is a struct of plain values, as TailFor asks.
	tail, err := b.TailFor(meta, cachedbody.JSONType, func() ([]byte, error) {
		var buf bytes.Buffer
		if meta != nil {
			buf.WriteString(`,"meta":`)
			if err := encodeJSON(&buf, meta); err != nil {
				return nil, err
			}
		}
		buf.WriteString("}\n")
		return buf.Bytes(), nil
	})
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	b.ServeJSON(w, r, tail)
}

// The largest answers (/api/apps, /api/metrics/summary) are encoded an
// element at a time (cachedbody.Stream), for each form only when a client
// asks for it: plain into segments (cachedbody.Segments), which the
// requests still reading an older snapshot's answer release as they go,
// gzip through the compressor.

// bodyHints are the sizes of the last large answers made in one piece, to
// size the next.
type bodyHints struct {
	metrics atomic.Int64 // the snapshot part of /metrics (metrics.go)
}

// summaryHeadJSON is summaryJSON without its lists, which must be its last
// members.
type summaryHeadJSON struct {
	TotalRequests       int64    `json:"total_requests"`
	TotalErrors         int64    `json:"total_errors"`
	AverageResponseTime *float64 `json:"average_response_time"`
	UptimePercentage    *float64 `json:"uptime_percentage"`
}

// lazySummary is summaryJSON with its lists made as they are written.
type lazySummary struct {
	head      summaryHeadJSON
	apps      cachedbody.LazyList[appSummaryJSON]
	locations cachedbody.LazyList[locationSummaryItemJSON]
}

func (v *lazySummary) write(s *cachedbody.Stream) {
	s.Value(v.head)
	if s.Err() != nil {
		return
	}
	buf := s.Buf()
	buf.Truncate(buf.Len() - 1) // the head's "}"
	buf.WriteString(`,"apps_summary":`)
	v.apps.Write(s)
	buf.WriteString(`,"locations_summary":`)
	v.locations.Write(s)
	buf.WriteByte('}')
}

// largeEnvelope is envelopeHead for the large answers: a body encoded
// anew for each form a client asks for (cachedbody.NewEncoded), its plain
// bytes in segments.
func largeEnvelope(v any) *cachedbody.Body {
	return cachedbody.NewEncoded(func(w io.Writer) { writeLarge(w, v) })
}

// writeLarge writes the envelope's start around v to w.
func writeLarge(w io.Writer, v any) {
	s := cachedbody.NewStreamTo(w)
	s.Buf().WriteString(`{"data":`)
	switch v := v.(type) {
	case []appJSON:
		cachedbody.List(s, v)
	case cachedbody.LazyList[appJSON]:
		v.Write(s)
	case lazySummary:
		v.write(s)
	default:
		s.Value(v)
	}
	s.Flush()
	if err := s.Err(); err != nil {
		// Only our own types are encoded here, to a writer that does not
		// fail; failing to encode them is a bug, not a request error.
		panic("availmon: encoding snapshot: " + err.Error())
	}
}

// historyCache keeps a snapshot's /api/status/history answers. An answer
// depends on the minute history, which only a cycle changes (and every
// cycle publishes a new snapshot, with an empty cache), and on the current
// minute, which moves the buckets along: so it is made at most once per
// period, resolution and minute, instead of scanning and encoding up to
// 43,200 minute buckets per request.
type historyCache struct {
	mu      sync.Mutex
	answers map[historyKey]historyAnswer
}

type historyKey struct{ period, resolution string }

type historyAnswer struct {
	minute int64     // unix minute the answer was made for
	made   time.Time // when: the answer's meta.timestamp
	count  int       // data points
	body   *cachedbody.Body
}

// get returns the answer for period and res at now, made from h when the
// cache has none for now's minute.
func (c *historyCache) get(h *minuteHistory, now time.Time, period, res string, pd, rd time.Duration) historyAnswer {
	key, minute := historyKey{period, res}, now.Unix()/60
	if now.Unix() < 0 && now.Unix()%60 != 0 {
		minute-- // floor, for a test clock before 1970
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.answers[key]; ok && a.minute == minute {
		return a
	}
	points := h.points(now, pd, rd)
	out := make([]dataPointJSON, len(points))
	for i, p := range points {
		out[i] = dataPointJSON{Timestamp: jsontime.Time(p.start), OverallAvailability: p.availability,
			AppsUp: p.up, AppsDown: p.down, AppsUnavailable: p.unavai}
	}
	a := historyAnswer{minute: minute, made: now, count: len(out),
		body: cachedbody.New(envelopeHead(statusHistoryJSON{Period: period, Resolution: res, DataPoints: out}))}
	if c.answers == nil {
		c.answers = make(map[historyKey]historyAnswer)
	}
	c.answers[key] = a
	return a
}

// ctlCache holds what the operators' controls derive from one snapshot,
// each part built on first use: the services' states, and the per-state
// index of /api/apps filters with each app's JSON. They are apart because
// every /metrics scrape needs the services (availmon_service_up) while
// filters are rare, and the filters' part costs some 50 bytes an app.
type ctlCache struct {
	once     sync.Once
	v        *ctlViews
	appsOnce sync.Once
	apps     *appViews
}

type ctlViews struct {
	services []serviceView
	svcJSON  lazyJSON
	svcOne   []lazyJSON
}

// appViews are what /api/apps filters read: the apps of each state, and
// each app's JSON, encoded lazily.
type appViews struct {
	byStatus map[Status][]int
	appJSON  [][]byte
	appOnce  []sync.Once
}

func (s *snapshot) ctlViews() *ctlViews {
	s.ctl.once.Do(func() {
		v := &ctlViews{
			services: make([]serviceView, len(s.p.ctl.services)),
			svcOne:   make([]lazyJSON, len(s.p.ctl.services)),
		}
		for i := range s.p.ctl.services {
			v.services[i] = s.p.ctl.services[i].evaluate(s.serviceStatus)
		}
		s.ctl.v = v
	})
	return s.ctl.v
}

func (s *snapshot) appViews() *appViews {
	s.ctl.appsOnce.Do(func() {
		v := &appViews{
			byStatus: make(map[Status][]int, 3),
			appJSON:  make([][]byte, len(s.apps)),
			appOnce:  make([]sync.Once, len(s.apps)),
		}
		for i, a := range s.apps {
			v.byStatus[a.status()] = append(v.byStatus[a.status()], i)
		}
		s.ctl.apps = v
	})
	return s.ctl.apps
}

// serviceStatus is an app's state as services count it: an app in
// maintenance counts as up, so planned work does not page anyone.
func (s *snapshot) serviceStatus(i int) Status {
	if s.apps[i].maint() {
		return StatusUp
	}
	return s.apps[i].status()
}

// appsList writes the JSON array of the apps idx, from each app's JSON
// encoded at most once per snapshot.
func (v *appViews) appsList(s *snapshot, idx []int) []byte {
	n := 2
	for _, i := range idx {
		n += len(v.app(s, i)) + 1
	}
	var b bytes.Buffer
	b.Grow(n)
	b.WriteByte('[')
	for j, i := range idx {
		if j > 0 {
			b.WriteByte(',')
		}
		b.Write(v.app(s, i))
	}
	b.WriteByte(']')
	return b.Bytes()
}

func (v *appViews) app(s *snapshot, i int) []byte {
	v.appOnce[i].Do(func() {
		b, err := marshal(s.appJSON(i))
		if err != nil {
			panic("availmon: encoding snapshot: " + err.Error())
		}
		v.appJSON[i] = bytes.TrimRight(b, "\n")
	})
	return v.appJSON[i]
}
