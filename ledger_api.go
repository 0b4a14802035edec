package availmon

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/availmon/availmon/internal/answercache"
	"github.com/availmon/availmon/internal/cachedbody"
	"github.com/availmon/availmon/internal/jsontime"
	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/internal/report"
	"github.com/availmon/availmon/period"
	"github.com/availmon/availmon/timeline"
	"github.com/go-chi/chi/v5"
)

// GET /api/availability: the time of every app, location or service by
// state over a window or a calendar period, in a time zone, optionally per
// step. The answer is made from the snapshot's Book: its windows end at the
// snapshot's time, so it is the same for every request of a snapshot and
// is kept once made (answercache).

// Limits of /api/availability.
const (
	defaultAvailWindow = "24h"
	maxSteps           = 2000      // parts of the range a step may cut
	maxStepCells       = 1_000_000 // rows times steps: the answer's size
)

var availParams = []string{"window", "period", "by", "step", "tz", "location", "status", "label.*"}

const availAccepted = "accepted query parameters: window (such as 24h, 30d; default 24h) or period (2026-11-25, 2026-W47, 2026-11, 2026-Q4, 2026), " +
	"by (app, location, service; default app), step (such as 1h, 1d), tz (an IANA zone such as Europe/Berlin), " +
	"and the filters of /api/apps for by=app and by=location: location, status, label.KEY"

// availQuery is a parsed /api/availability request.
type availQuery struct {
	key          string // canonical form: the cache's key
	window, per  string // as given; one is set
	by           ledger.Kind
	step         string
	loc          *time.Location
	rng          period.Range
	bounds       []time.Time // of the steps; nil without step
	location     int         // book index of ?location=, or -1
	apps         []int       // apps that the status and label filters pass (plan indexes); nil: no such filter
	appsFiltered bool
}

type availAnswer struct {
	body  *cachedbody.Body
	count int
	made  time.Time // the time of the snapshot it was made from
}

// Size is the bytes of a's body, what the kept reports are bounded by.
func (a availAnswer) Size() int {
	if a.body == nil {
		return 0
	}
	return a.body.Len()
}

func (m *Monitor) getAvailability(w http.ResponseWriter, r *http.Request) {
	s := m.snap.Load()
	q, err := m.parseAvailQuery(r.URL.RawQuery, s)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	a := s.avail.Get(q.key, func() availAnswer { return s.availabilityAnswer(q) })
	m.writeEncoded(w, r, a.body, countMetaJSON{Count: a.count, Timestamp: jsontime.Time(s.made)})
}

// single returns the one value of key, "" when it is absent.
func single(q url.Values, key string) (string, error) {
	vs, ok := q[key]
	switch {
	case !ok:
		return "", nil
	case len(vs) != 1:
		return "", validationError("invalid "+key, fmt.Sprintf("%s is given %d times", key, len(vs)), availAccepted)
	case vs[0] == "":
		return "", validationError("invalid "+key, key+" is empty", availAccepted)
	}
	return vs[0], nil
}

// parseAvailQuery reads and checks the request against snapshot s.
func (m *Monitor) parseAvailQuery(raw string, s *snapshot) (*availQuery, error) {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return nil, validationError("invalid query string", err.Error(), availAccepted)
	}
	aq := &availQuery{location: -1, loc: m.cfg.timeZone}
	vals := make(map[string]string)
	for _, k := range []string{"window", "period", "by", "step", "tz", "location", "status"} {
		if vals[k], err = single(q, k); err != nil {
			return nil, err
		}
	}
	if err := aq.parseBy(vals["by"]); err != nil {
		return nil, err
	}
	if tz := vals["tz"]; tz != "" {
		if aq.loc, err = period.LoadLocation(tz); err != nil {
			return nil, validationError("invalid tz", err.Error())
		}
	}
	if err := aq.parseRange(vals["window"], vals["period"], s.book.At); err != nil {
		return nil, err
	}
	if err := aq.parseStep(vals["step"]); err != nil {
		return nil, err
	}
	if err := aq.parseFilters(m, q, vals, s); err != nil {
		return nil, err
	}
	if err := aq.checkSize(s); err != nil {
		return nil, err
	}
	aq.key = strings.Join([]string{aq.window, aq.per, aq.by.String(), aq.step, aq.loc.String(),
		vals["location"], vals["status"], labelKey(q)}, "\x00")
	return aq, nil
}

func labelKey(q url.Values) string {
	var parts []string
	for k, vs := range q {
		if strings.HasPrefix(k, labelParam) {
			for _, v := range vs {
				parts = append(parts, k+"="+v)
			}
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, "\x01")
}

func (aq *availQuery) parseBy(by string) error {
	switch by {
	case "", "app":
		aq.by = ledger.App
	case "location":
		aq.by = ledger.Location
	case "service":
		aq.by = ledger.Service
	default:
		return validationError("invalid by", fmt.Sprintf("by %q is not supported", by), "allowed values: app, location, service (default app)")
	}
	return nil
}

// parseRange resolves the window (ending at now) or the calendar period
// (in the query's zone, up to now when it has not ended).
func (aq *availQuery) parseRange(window, per string, now time.Time) error {
	switch {
	case window != "" && per != "":
		return validationError("give window or period, not both", availAccepted)
	case per != "":
		p, err := period.Parse(per)
		if err != nil {
			return validationError("invalid period", err.Error())
		}
		aq.per, aq.rng = per, p.In(aq.loc)
		if !aq.rng.Start.Before(now) {
			return validationError("invalid period", fmt.Sprintf("period %q has not begun (in %s)", per, aq.loc))
		}
		if aq.rng.End.After(now) {
			aq.rng.End = now // the rest has not happened
		}
	default:
		aq.window = cmp0(window, defaultAvailWindow)
		w, err := period.ParseWindow(aq.window)
		if err != nil {
			return validationError("invalid window", err.Error())
		}
		aq.rng = w.Ending(now)
	}
	return nil
}

func cmp0(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (aq *availQuery) parseStep(step string) error {
	if step == "" {
		return nil
	}
	st, err := period.ParseStep(step)
	if err != nil {
		return validationError("invalid step", err.Error())
	}
	aq.step = step
	aq.bounds = append(aq.bounds, aq.rng.Start)
	for part := range aq.rng.Split(st, aq.loc) {
		if len(aq.bounds) > maxSteps {
			return validationError("too many steps",
				fmt.Sprintf("step %s cuts the range into more than %d parts", step, maxSteps),
				"use a longer step or a shorter window or period")
		}
		aq.bounds = append(aq.bounds, part.End)
	}
	if len(aq.bounds) < 2 {
		aq.bounds = append(aq.bounds, aq.rng.End)
	}
	return nil
}

// parseFilters reads the filters of /api/apps, which by=service refuses: a
// service's time is its quorum's, not a sum of apps.
func (aq *availQuery) parseFilters(m *Monitor, q url.Values, vals map[string]string, s *snapshot) error {
	filtered := vals["location"] != "" || vals["status"] != ""
	rest := url.Values{}
	for k, vs := range q {
		if strings.HasPrefix(k, labelParam) {
			filtered = true
			rest[k] = vs
		}
	}
	if !filtered {
		return nil
	}
	if aq.by == ledger.Service {
		return validationError("the filters apply to by=app and by=location", "by=service takes no location, status or label filter")
	}
	if loc := vals["location"]; loc != "" {
		li, ok := s.book.Lookup(ledger.Location, loc)
		if !ok {
			return validationError("invalid location", fmt.Sprintf("no location is named %q", loc))
		}
		aq.location = li
	}
	if vals["status"] == "" && len(rest) == 0 {
		return nil
	}
	if st := vals["status"]; st != "" {
		rest.Set("status", st)
	}
	f, err := m.parseAppFilter(rest.Encode(), s)
	if err != nil {
		return err
	}
	aq.apps, aq.appsFiltered = f.apply(len(s.apps)), true
	return nil
}

// checkSize bounds the steps of the answer.
func (aq *availQuery) checkSize(s *snapshot) error {
	if aq.bounds == nil {
		return nil
	}
	rows := s.book.Len(aq.by)
	if aq.appsFiltered && aq.by == ledger.App {
		rows = len(aq.apps)
	}
	if cells := rows * (len(aq.bounds) - 1); cells > maxStepCells {
		return validationError("the answer would be too large",
			fmt.Sprintf("%d rows of %d steps are %d figures, more than %d", rows, len(aq.bounds)-1, cells, maxStepCells),
			"narrow it with the filters, a longer step or a shorter range")
	}
	return nil
}

// GET /api/apps/{name}/outages, /api/locations/{name}/outages and
// /api/services/{name}/outages: the outages of one entity that overlap
// [from, to), oldest first, from the snapshot's Book. An app, location or
// service removed from the configuration is still found while the ledger
// keeps it.

// defaultOutageRange is the range of an outages request without from.
const defaultOutageRange = 30 * 24 * time.Hour

const outagesAccepted = "accepted query parameters: from and to, RFC 3339 times such as 2026-11-01T00:00:00Z " +
	"(default: to now, from 30 days before to); from must be before to, and at most the retention apart"

func (m *Monitor) appOutages(w http.ResponseWriter, r *http.Request) {
	m.outages(w, r, ledger.App)
}

func (m *Monitor) locationOutages(w http.ResponseWriter, r *http.Request) {
	m.outages(w, r, ledger.Location)
}

func (m *Monitor) serviceOutages(w http.ResponseWriter, r *http.Request) {
	m.outages(w, r, ledger.Service)
}

func (m *Monitor) outages(w http.ResponseWriter, r *http.Request, k ledger.Kind) {
	name, err := pathName(r)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	s := m.snap.Load()
	b := s.book
	i, ok := b.Lookup(k, name)
	if !ok {
		m.writeError(w, r, notFoundError(k.String()+" not found", fmt.Sprintf("no %s is named %q", k, name)))
		return
	}
	from, to, err := m.outageRange(r.URL.RawQuery, b.At)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	os := b.Outages(k, i, from, to)
	buf := make([]byte, 0, 256+len(os)*200)
	buf = append(buf, `{"kind":`...)
	buf = appendJSONString(buf, k.String())
	buf = append(buf, `,"name":`...)
	buf = appendJSONString(buf, name)
	if k == ledger.App {
		buf = append(buf, `,"location":`...)
		buf = appendJSONString(buf, b.AppLocation(i))
	}
	buf = append(buf, `,"removed":`...)
	buf = strconv.AppendBool(buf, !b.Removed(k, i).IsZero())
	buf = append(buf, `,"from":`...)
	buf = appendTime(buf, from)
	buf = append(buf, `,"to":`...)
	buf = appendTime(buf, to)
	buf = append(buf, `,"outages":[`...)
	for n := range os {
		if n > 0 {
			buf = append(buf, ',')
		}
		o := &os[n]
		buf = append(buf, `{"start":`...)
		buf = appendTime(buf, o.Start)
		buf = append(buf, `,"end":`...)
		if o.Ongoing {
			buf = append(buf, "null"...)
		} else {
			buf = appendTime(buf, o.End)
		}
		buf = append(buf, `,"ongoing":`...)
		buf = strconv.AppendBool(buf, o.Ongoing)
		buf = append(buf, `,"duration_seconds":`...)
		buf = strconv.AppendInt(buf, int64(o.Duration/time.Second), 10)
		buf = append(buf, `,"maintenance":`...)
		buf = strconv.AppendBool(buf, o.Maintenance)
		if k == ledger.Location {
			buf = append(buf, `,"extent":`...)
			buf = appendJSONString(buf, map[bool]string{false: "partial", true: "full"}[o.Full])
		}
		buf = append(buf, `,"count":`...)
		buf = strconv.AppendInt(buf, int64(o.Count), 10)
		buf = append(buf, `,"approximate":`...)
		buf = strconv.AppendBool(buf, o.Approximate)
		buf = append(buf, '}')
	}
	buf = append(buf, "]}"...)
	writeJSON(w, http.StatusOK, envelope{Data: rawJSON(buf), Meta: countMetaJSON{Count: len(os), Timestamp: jsontime.Time(s.made)}})
}

// outageRange reads ?from= and ?to=; to defaults to now (the snapshot's
// time), from to 30 days before to. A range past now ends at now: the
// ledger knows nothing later.
func (m *Monitor) outageRange(raw string, now time.Time) (from, to time.Time, err error) {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return from, to, validationError("invalid query string", err.Error(), outagesAccepted)
	}
	parse := func(key string, def time.Time) (time.Time, error) {
		v, err := single(q, key)
		if err != nil || v == "" {
			return def, err
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return t, validationError("invalid "+key, fmt.Sprintf("%s %q is not an RFC 3339 time", key, v), outagesAccepted)
		}
		return t, nil
	}
	if to, err = parse("to", now); err != nil {
		return from, to, err
	}
	if from, err = parse("from", to.Add(-defaultOutageRange)); err != nil {
		return from, to, err
	}
	retention := m.ledger.Retention()
	switch {
	case !from.Before(to):
		return from, to, validationError("invalid range", "from must be before to", outagesAccepted)
	case to.Sub(from) > retention:
		return from, to, validationError("invalid range",
			fmt.Sprintf("from and to are %s apart, more than the retention %s", formatDuration(to.Sub(from)), formatDuration(retention)), outagesAccepted)
	}
	if to.After(now) {
		to = now
	}
	if !from.Before(to) {
		from = to
	}
	return from, to, nil
}

// The answer of /api/availability is written by hand, a row at a time,
// rather than through encoding/json: at 10,000 apps it is a few megabytes
// of numbers, and reflection over a struct per row would take most of its
// time.

// availabilityAnswer makes the answer to q from the snapshot's Book.
func (s *snapshot) availabilityAnswer(q *availQuery) availAnswer {
	b := s.book
	lq := ledger.Query{From: q.rng.Start, To: q.rng.End, Steps: q.bounds}
	rows := q.rows(b)
	// Written a few rows at a time into segments: at 100,000 apps the
	// answer is 24 MB, made anew each snapshot, which in one piece would
	// need fresh pages each time, and which a slow reader would hold
	// whole after a newer snapshot replaced it.
	var segs cachedbody.Segments
	buf := make([]byte, 0, availChunk+availChunk/4)
	buf = append(buf, `{"data":{"from":`...)
	buf = appendTime(buf, q.rng.Start)
	buf = append(buf, `,"to":`...)
	buf = appendTime(buf, q.rng.End)
	buf = append(buf, `,"window":`...)
	buf = appendOptString(buf, q.window)
	buf = append(buf, `,"period":`...)
	buf = appendOptString(buf, q.per)
	buf = append(buf, `,"time_zone":`...)
	buf = appendJSONString(buf, q.loc.String())
	buf = append(buf, `,"by":`...)
	buf = appendJSONString(buf, q.by.String())
	buf = append(buf, `,"step":`...)
	buf = appendOptString(buf, q.step)
	buf = append(buf, `,"steps":`...)
	buf = appendStepBounds(buf, q.bounds)
	buf = append(buf, `,"items":[`...)
	for n, i := range rows {
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = q.appendRow(buf, b, i, lq)
		if len(buf) >= availChunk {
			segs.Write(buf) //nolint:errcheck // Segments does not fail
			buf = buf[:0]
		}
	}
	segs.Write(append(buf, "]}"...)) //nolint:errcheck
	return availAnswer{body: cachedbody.NewSegmented(&segs), count: len(rows)}
}

// availChunk is about how much of an /api/availability answer is written
// into its segments at once.
const availChunk = 16 << 10

// rows are the book indexes of the answer's rows, in the book's order.
func (q *availQuery) rows(b *ledger.Book) []int {
	var out []int
	switch {
	case q.by == ledger.App && q.appsFiltered:
		for _, i := range q.apps {
			if q.location < 0 || b.AppLocation(i) == b.Name(ledger.Location, q.location) {
				out = append(out, i)
			}
		}
	case q.by == ledger.App:
		for i := range b.Len(ledger.App) {
			if q.location < 0 || b.AppLocation(i) == b.Name(ledger.Location, q.location) {
				out = append(out, i)
			}
		}
	case q.by == ledger.Location && q.location >= 0:
		out = []int{q.location}
	default:
		out = make([]int, b.Len(q.by))
		for i := range out {
			out[i] = i
		}
	}
	return out
}

func (q *availQuery) appendRow(buf []byte, b *ledger.Book, i int, lq ledger.Query) []byte {
	var f ledger.Figures
	buf = append(buf, `{"name":`...)
	buf = appendJSONString(buf, b.Name(q.by, i))
	switch q.by {
	case ledger.App:
		f = b.App(i, lq)
		buf = append(buf, `,"location":`...)
		buf = appendJSONString(buf, b.AppLocation(i))
	case ledger.Location:
		apps := b.LocationApps(i)
		if q.appsFiltered {
			apps = intersectSorted(append([]int(nil), q.apps...), apps)
		}
		f = b.Location(i, apps, lq)
		buf = append(buf, `,"apps":`...)
		buf = strconv.AppendInt(buf, int64(len(apps)), 10)
	default:
		f = b.Service(i, lq)
	}
	buf = append(buf, `,"removed":`...)
	buf = strconv.AppendBool(buf, !b.Removed(q.by, i).IsZero())
	buf = appendTotals(buf, f.Totals)
	buf = append(buf, `,"downtime_seconds":`...)
	buf = strconv.AppendInt(buf, int64(f.Downtime/time.Second), 10)
	buf = append(buf, `,"outages":`...)
	buf = strconv.AppendInt(buf, int64(f.Outages), 10)
	buf = append(buf, `,"approximate":`...)
	buf = strconv.AppendBool(buf, f.Approximate)
	if f.Steps != nil {
		buf = append(buf, `,"steps":[`...)
		for n, t := range f.Steps {
			if n > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '[')
			for k, d := range []time.Duration{t.Up, t.Down, t.Unknown + t.Partial, t.Maintenance} {
				if k > 0 {
					buf = append(buf, ',')
				}
				buf = strconv.AppendInt(buf, int64(d/time.Second), 10)
			}
			buf = append(buf, ']')
		}
		buf = append(buf, ']')
	}
	return append(buf, '}')
}

// appendTotals writes the seconds by state, availability and coverage.
func appendTotals(buf []byte, t timeline.Totals) []byte {
	for _, m := range []struct {
		name string
		d    time.Duration
	}{{"up_seconds", t.Up}, {"down_seconds", t.Down}, {"unknown_seconds", t.Unknown + t.Partial}, {"maintenance_seconds", t.Maintenance}} {
		buf = append(buf, `,"`...)
		buf = append(buf, m.name...)
		buf = append(buf, `":`...)
		buf = strconv.AppendInt(buf, int64(m.d/time.Second), 10)
	}
	a, ok := t.Availability()
	buf = append(buf, `,"availability":`...)
	buf = appendPercent(buf, a, ok)
	c, ok := t.Coverage()
	buf = append(buf, `,"coverage":`...)
	return appendPercent(buf, c, ok)
}

// appendPercent writes 100*v to four decimals (99.9942: a month's minute
// of downtime shows), or null.
func appendPercent(buf []byte, v float64, ok bool) []byte {
	if !ok || math.IsNaN(v) {
		return append(buf, "null"...)
	}
	return strconv.AppendFloat(buf, roundTo(100*v, 4), 'f', -1, 64)
}

func appendStepBounds(buf []byte, bounds []time.Time) []byte {
	if bounds == nil {
		return append(buf, "null"...)
	}
	buf = append(buf, '[')
	for i := 1; i < len(bounds); i++ {
		if i > 1 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"start":`...)
		buf = appendTime(buf, bounds[i-1])
		buf = append(buf, `,"end":`...)
		buf = appendTime(buf, bounds[i])
		buf = append(buf, '}')
	}
	return append(buf, ']')
}

// appendTime writes t as jsontime.Time does.
func appendTime(buf []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(buf, "null"...)
	}
	buf = append(buf, '"')
	buf = t.UTC().AppendFormat(buf, jsontime.Format)
	return append(buf, '"')
}

func appendOptString(buf []byte, s string) []byte {
	if s == "" {
		return append(buf, "null"...)
	}
	return appendJSONString(buf, s)
}

// appendJSONString writes s as encoding/json does without HTML escaping.
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			case c == '\n':
				buf = append(buf, '\\', 'n')
			case c == '\r':
				buf = append(buf, '\\', 'r')
			case c == '\t':
				buf = append(buf, '\\', 't')
			case c == '\b':
				buf = append(buf, '\\', 'b')
			case c == '\f':
				buf = append(buf, '\\', 'f')
			case c < 0x20:
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				buf = append(buf, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			buf = append(buf, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			buf = append(buf, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			buf = append(buf, s[i:i+n]...)
		}
		i += n
	}
	return append(buf, '"')
}

// GET /api/reports/{period}: the report of a calendar period
// (internal/report) as JSON or CSV, made once per query and kept with the
// snapshot's /api/availability answers, or across snapshots for a closed
// period (reportAnswers).

var reportParams = []string{"format", "tz"}

const reportAccepted = "the period is 2026-11-25, 2026-W47, 2026-11, 2026-Q4 or 2026; " +
	"accepted query parameters: format (json, csv; default json, or csv when Accept names text/csv), " +
	"tz (an IANA zone such as Europe/Berlin; default reports.time_zone)"

// A report of a closed period is the same from snapshot to snapshot until
// the ledger's past changes: a backfill fills it, a maintenance window
// marks or unmarks it, a reconfiguration or a restore replaces the
// roster, or the retention prunes into the period. At 100,000 apps a
// report takes about as long to make as a cycle lasts: made per snapshot,
// most requests for it would wait for the next one. It is kept until the
// past changes (pastGen, pastChanged).

// Bounds of the reports kept across snapshots. A report of 100,000 apps is
// about 32 MB of JSON and 12 MB of CSV, with its gzip variant beside each.
const (
	maxReportsKept = 4
	// maxReportBytes bounds their plain bodies (the gzip variants are
	// under a twentieth as large), within which the last made are kept
	// (answercache.Cache). At 100,000 apps it holds last month's JSON
	// or its CSV, not both: kept together they added 45 MB to the
	// resident memory for good once each had been asked, a sixth of the
	// steady memory, which the peak under load stood on. The other one
	// is then made again at most once a snapshot.
	maxReportBytes = 40 << 20
	// reportSettle is how long after its end a period must be before its
	// report is kept across snapshots: a check's time may lag its
	// cycle's, and a check holds its state up to twice the interval.
	reportSettle = time.Hour
)

// keptReports are the reports kept across snapshots, by the past's
// generation.
type keptReports struct {
	answercache.Gen[availAnswer]
	maxBytes int // 0: maxReportBytes; a test's smaller fleet sets less
}

func (m *Monitor) getReport(w http.ResponseWriter, r *http.Request) {
	s := m.snap.Load()
	q, err := m.parseReportQuery(r, s)
	if err != nil {
		m.writeError(w, r, err)
		return
	}
	kept, spill := m.reportAnswers(s, q)
	a := kept.GetOr("report\x00"+q.Key(), spill, func() availAnswer {
		return reportAnswer(report.Make(s.book, q), q.Format, s.made)
	})
	w.Header().Add("Vary", "Accept")
	if q.Format == report.CSV {
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="availmon-report-%s.csv"`, q.Period))
		a.body.Serve(w, r, nil, "text/csv; charset=utf-8; header=present")
		return
	}
	// As of the snapshot it was made from: a report kept across snapshots
	// keeps its ETag, and a poller its 304s, until the past changes.
	m.writeEncoded(w, r, a.body, countMetaJSON{Count: a.count, Timestamp: jsontime.Time(a.made)})
}

// reportAnswer is the answer of rep in format f, made at made, kept in
// segments (cachedbody.Segments): at 100,000 apps a report is 32 MB of
// JSON or 12 MB of CSV, which in one piece would need as many contiguous
// bytes, fresh pages that stay resident after it is gone.
func reportAnswer(rep *report.Report, f report.Format, made time.Time) availAnswer {
	var segs cachedbody.Segments
	// Segments does not fail.
	if f == report.CSV {
		rep.WriteCSV(&segs) //nolint:errcheck
	} else {
		segs.Write([]byte(`{"data":`)) //nolint:errcheck
		rep.WriteJSON(&segs)           //nolint:errcheck
	}
	return availAnswer{body: cachedbody.NewSegmented(&segs), count: rep.Len(), made: made}
}

// reportAnswers is where the answers of q are kept for snapshot s: across
// snapshots for a closed period the retention has not reached, else with
// the snapshot. spill, when not nil, is where those the kept reports have
// no room for go: the snapshot's.
func (m *Monitor) reportAnswers(s *snapshot, q report.Query) (c, spill *answercache.Cache[availAnswer]) {
	rng := q.Period.In(q.Zone)
	at := s.book.At
	if rng.End.Add(reportSettle).After(at) || rng.Start.Before(at.Add(-m.ledger.Retention())) {
		return &s.avail, nil
	}
	if c := m.reports.Of(s.pastGen, maxReportsKept, cmp.Or(m.reports.maxBytes, maxReportBytes)); c != nil {
		return c, &s.avail
	}
	return &s.avail, nil
}

// parseReportQuery reads the period of the path, ?format= (or Accept) and
// ?tz=.
func (m *Monitor) parseReportQuery(r *http.Request, s *snapshot) (report.Query, error) {
	q := r.URL.Query()
	vals := make(map[string]string, 2)
	for _, k := range reportParams {
		switch vs := q[k]; {
		case len(vs) > 1:
			return report.Query{}, validationError("invalid "+k, fmt.Sprintf("%s is given %d times", k, len(vs)), reportAccepted)
		case len(vs) == 1 && vs[0] == "":
			return report.Query{}, validationError("invalid "+k, k+" is empty", reportAccepted)
		case len(vs) == 1:
			vals[k] = vs[0]
		}
	}
	if vals["format"] == "" && acceptsCSV(r.Header.Values("Accept")) {
		vals["format"] = "csv"
	}
	rq, err := report.ParseQuery(chi.URLParam(r, "period"), vals["format"], vals["tz"], m.cfg.timeZone)
	if err == nil && rq.Format == report.Table {
		err = fmt.Errorf("%w: the table is for the terminal (availmon report)", report.ErrFormat)
	}
	if err == nil {
		err = rq.Begun(s.book.At)
	}
	if err != nil {
		return rq, validationError(reportErrorMessage(err), err.Error(), reportAccepted)
	}
	return rq, nil
}

func reportErrorMessage(err error) string {
	switch {
	case errors.Is(err, report.ErrFormat):
		return "invalid format"
	case errors.Is(err, period.ErrTimeZone):
		return "invalid tz"
	}
	return "invalid period"
}

// acceptsCSV tells whether an Accept header names text/csv.
func acceptsCSV(headers []string) bool {
	for _, h := range headers {
		for part := range strings.SplitSeq(h, ",") {
			if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == "text/csv" {
				return true
			}
		}
	}
	return false
}
