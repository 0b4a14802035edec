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
	b.Serve(w, r, tail, "application/json; charset=utf-8")
}

// Serve answers r with b's bytes and tail, of content type ctype, as
// ServeJSON does. A caller whose answer varies on more than
// Accept-Encoding adds its own Vary: Serve adds to the header, never sets it.
func (b *Body) Serve(w http.ResponseWriter, r *http.Request, tail []byte, ctype string) {
	g, gz := b.Gzipped()
	gz = gz && AcceptsGzip(r.Header.Values("Accept-Encoding"))
	etag := b.ETag(tail, gz)
	h := w.Header()
	h.Set("ETag", etag)
	// The answer depends on Accept-Encoding; caches must key on it.
	h.Add("Vary", "Accept-Encoding")
	// Stored, but revalidated on every use: that is what makes
	// If-None-Match worth sending.
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	if ETagMatch(r.Header.Values("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", ctype)
	if gz {
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", strconv.Itoa(g.Size(len(tail))))
		w.WriteHeader(http.StatusOK)
		g.WriteTo(w, tail) //nolint:errcheck // the client went away; nothing to do
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(b.Head())+len(tail)))
	w.WriteHeader(http.StatusOK)
	// Errors are ignored: the client went away.
	w.Write(b.Head()) //nolint:errcheck
	w.Write(tail)     //nolint:errcheck
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
