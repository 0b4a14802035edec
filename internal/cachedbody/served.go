package cachedbody

import (
	"bytes"
	"strconv"
)

// A body's tail is the same for every request of the body (its meta is as
// of the snapshot), so what a request needs from it besides the bytes (the
// tail itself, the ETags, the length) is made for the first request and
// kept for the next: a 304 then costs a comparison of tags, not an encoding
// and a checksum.

// served is a tail with the header values a request of body and tail
// takes. The slices go into response headers as they are, shared by every
// request: nothing changes them after they are made (a header's Add
// appends to a copy, since each slice is full).
type served struct {
	key    any // what TailFor made the tail from; nil for a tail given to Serve
	tail   []byte
	etag   []string // nil until made, for a tail kept before its encoded body was measured
	gzEtag []string // nil when the body is too small to be gzipped
	length []string // of the plain answer
	ctype  []string
	fixed  fixedHeaders
}

// fixedHeaders are the values every answer of a body carries.
type fixedHeaders struct {
	vary, cacheControl, nosniff []string
}

func (b *Body) newServed(key any, tail []byte, ctype string) *served {
	s := &served{key: key, tail: tail,
		etag:   full(b.ETag(tail, false)),
		length: full(strconv.Itoa(b.n + len(tail))),
		ctype:  full(ctype),
		fixed: fixedHeaders{
			// The answer depends on Accept-Encoding; caches must key on it.
			vary: full("Accept-Encoding"),
			// Stored, but revalidated on every use: that is what makes
			// If-None-Match worth sending.
			cacheControl: full("no-cache"),
			nosniff:      full("nosniff"),
		},
	}
	if b.n >= minGzipBytes {
		s.gzEtag = full(b.ETag(tail, true))
	}
	return s
}

// full is a header value whose slice has no room to append in place.
func full(v string) []string { return []string{v}[:1:1] }

// servedFor returns what a request with tail and ctype needs, made anew
// only when tail or ctype differ from the last request's.
func (b *Body) servedFor(tail []byte, ctype string) *served {
	var key any
	if s := b.last.Load(); s != nil && bytes.Equal(s.tail, tail) {
		if s.ctype[0] == ctype && s.etag != nil {
			return s
		}
		key = s.key
	}
	s := b.newServed(key, bytes.Clone(tail), ctype)
	b.last.Store(s)
	return s
}

// TailFor returns the tail made from key by mk, which runs only when key
// differs from the last one given for this body (key must be comparable:
// a struct of plain values, such as an envelope's meta). The tail is then
// ready, with its ETags, for the requests that follow with the same key.
func (b *Body) TailFor(key any, ctype string, mk func() ([]byte, error)) ([]byte, error) {
	if s := b.last.Load(); s != nil && s.key != nil && s.key == key {
		return s.tail, nil
	}
	tail, err := mk()
	if err != nil {
		return nil, err
	}
	if b.enc != nil && !b.enc.sized.Load() {
		// The tags need the body's length and checksum, which only the
		// form the request asks for measures: the request that serves the
		// tail first (servedFor) makes them.
		b.last.Store(&served{key: key, tail: tail, ctype: full(ctype)})
		return tail, nil
	}
	b.last.Store(b.newServed(key, tail, ctype))
	return tail, nil
}
