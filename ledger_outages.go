package availmon

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/availmon/availmon/internal/ledger"
)

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
	writeJSON(w, http.StatusOK, envelope{Data: rawJSON(buf), Meta: countMetaJSON{Count: len(os), Timestamp: jsonTime(s.made)}})
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
