package availmon

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
)

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
	return trimmed(buf.Bytes())
}

// writeEncoded answers with an envelope whose data is b's ready bytes and
// whose meta follows them. meta must be the same for every request of b
// (its timestamp is the snapshot's, not the request's): the answer's
// strong ETag covers it. A client that already has the answer gets 304 Not
// Modified, and one that accepts gzip gets the compressed bytes made once
// per body.
func (m *Monitor) writeEncoded(w http.ResponseWriter, r *http.Request, b *encodedBody, meta any) {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf) // only a meta member: never large
	if meta != nil {
		buf.WriteString(`,"meta":`)
		if err := encodeJSON(buf, meta); err != nil {
			m.writeError(w, r, err)
			return
		}
	}
	buf.WriteString("}\n")
	tail := buf.Bytes()
	g, gz := b.gzipped()
	gz = gz && acceptsGzip(r.Header.Values("Accept-Encoding"))
	etag := b.etag(tail, gz)
	h := w.Header()
	h.Set("ETag", etag)
	// The answer depends on Accept-Encoding; caches must key on it.
	h.Set("Vary", "Accept-Encoding")
	// Stored, but revalidated on every use: that is what makes
	// If-None-Match worth sending.
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	if etagMatch(r.Header.Values("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	if gz {
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", strconv.Itoa(g.size(len(tail))))
		w.WriteHeader(http.StatusOK)
		g.writeTo(w, tail) //nolint:errcheck // the client went away; nothing to do
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(b.head)+len(tail)))
	w.WriteHeader(http.StatusOK)
	// Errors are ignored: the client went away.
	w.Write(b.head) //nolint:errcheck
	w.Write(tail)   //nolint:errcheck
}

// etagMatch is If-None-Match's weak comparison (RFC 9110, 13.1.2): any
// listed tag, or "*", whose opaque part equals etag's.
func etagMatch(headers []string, etag string) bool {
	want := strings.TrimPrefix(etag, "W/")
	for _, h := range headers {
		for t := range strings.SplitSeq(h, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == want {
				return true
			}
		}
	}
	return false
}

// acceptsGzip tells whether Accept-Encoding allows gzip: named with a
// non-zero q, or matched by "*" when not named.
func acceptsGzip(headers []string) bool {
	named, star := false, false
	for _, h := range headers {
		for part := range strings.SplitSeq(h, ",") {
			coding, params, _ := strings.Cut(part, ";")
			coding = strings.ToLower(strings.TrimSpace(coding))
			if coding != "gzip" && coding != "x-gzip" && coding != "*" {
				continue
			}
			ok := qNonZero(params)
			if coding == "*" {
				star = ok
				continue
			}
			if ok {
				return true
			}
			named = true
		}
	}
	return !named && star
}

// qNonZero reads a coding's parameters ("q=0.5"): a q of zero refuses it.
func qNonZero(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err == nil && q > 0
		}
	}
	return true
}
