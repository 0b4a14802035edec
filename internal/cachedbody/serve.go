package cachedbody

import (
	"net/http"
	"strconv"
)

// ServeJSON answers r with the JSON made of b and tail. tail must be the
// same for every request of b: the answer's strong ETag covers it. A client
// that already has the answer gets 304 Not Modified, and one that accepts
// gzip gets the compressed bytes made once per body.
func (b *Body) ServeJSON(w http.ResponseWriter, r *http.Request, tail []byte) {
	b.Serve(w, r, tail, JSONType)
}

// JSONType is the content type of ServeJSON's answers.
const JSONType = "application/json; charset=utf-8"

// Serve answers r with b's bytes and tail, of content type ctype, as
// ServeJSON does. A caller whose answer varies on more than
// Accept-Encoding adds its own Vary: Serve adds to the header, never sets it.
// The tag of a body held whole is compared before anything is compressed;
// an encoded body (NewEncoded) first makes the form the client takes,
// which its tag is measured from. The body is compressed only for a
// client that takes gzip.
func (b *Body) Serve(w http.ResponseWriter, r *http.Request, tail []byte, ctype string) {
	accepts := AcceptsGzip(r.Header.Values("Accept-Encoding"))
	b.prepare(accepts)
	s := b.servedFor(tail, ctype)
	gz := s.gzEtag != nil && accepts
	etag := s.etag
	if gz {
		etag = s.gzEtag
	}
	h := w.Header()
	h["Etag"] = etag
	if v, ok := h["Vary"]; ok {
		h["Vary"] = append(v, s.fixed.vary[0])
	} else {
		h["Vary"] = s.fixed.vary
	}
	h["Cache-Control"] = s.fixed.cacheControl
	h["X-Content-Type-Options"] = s.fixed.nosniff
	if ETagMatch(r.Header.Values("If-None-Match"), etag[0]) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h["Content-Type"] = s.ctype
	if gz {
		g, _ := b.Gzipped()
		h["Content-Encoding"] = []string{"gzip"}
		h["Content-Length"] = []string{strconv.Itoa(g.Size(len(s.tail)))}
		w.WriteHeader(http.StatusOK)
		g.WriteTo(w, s.tail) //nolint:errcheck // the client went away; nothing to do
		return
	}
	h["Content-Length"] = s.length
	w.WriteHeader(http.StatusOK)
	// Errors are ignored: the client went away.
	if b.WriteBytes(w) == nil {
		w.Write(s.tail) //nolint:errcheck
	}
}

// Trimmed returns b, or a copy of it when b's array is much larger: a
// buffer that grew by doubling can be twice the answer, which lives as
// long as the Body made of it.
func Trimmed(b []byte) []byte {
	if cap(b)-len(b) > len(b)/8 {
		return append([]byte(nil), b...)
	}
	return b
}
