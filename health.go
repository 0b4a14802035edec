package availmon

import (
	"bytes"
	"net/http"
	"strconv"
	"time"

	"github.com/availmon/availmon/internal/jsontime"
)

// /health is what load balancers and orchestrators poll, often many times
// a second: its answer is written by hand rather than through
// encoding/json, whose reflection and boxing were a quarter of the
// request's cost (BenchmarkHealth). TestHealthJSON keeps the two equal.

// appendJSON appends h as encoding/json (HTML not escaped) writes it.
func (h *healthJSON) appendJSON(b []byte) []byte {
	b = append(b, `{"status":`...)
	b = appendJSONString(b, h.Status)
	b = append(b, `,"timestamp":`...)
	if t := time.Time(h.Timestamp); t.IsZero() {
		b = append(b, "null"...)
	} else {
		b = jsontime.AppendQuoted(b, t)
	}
	b = append(b, `,"uptime":`...)
	b = appendJSONString(b, h.Uptime)
	b = append(b, `,"version":`...)
	b = appendJSONString(b, h.Version)
	return append(b, "}\n"...)
}

// writeHealth answers with h, as writeJSON would.
func writeHealth(w http.ResponseWriter, status int, h *healthJSON) {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	buf.Grow(256)
	b := h.appendJSON(buf.AvailableBuffer())
	hd := w.Header()
	hd["Content-Type"] = jsonHeaders.contentType
	hd["Content-Length"] = []string{strconv.Itoa(len(b))}
	hd["Cache-Control"] = jsonHeaders.noStore
	hd["X-Content-Type-Options"] = jsonHeaders.nosniff
	w.WriteHeader(status)
	w.Write(b) //nolint:errcheck // the client went away; nothing to do
}
