package cachedbody

import (
	"compress/flate"
	"hash/crc32"
	"hash/crc64"
	"io"
	"sync"
	"sync/atomic"
)

// A large answer that clients ask for gzipped is 25 times smaller so: made
// whole and then compressed, its plain bytes (30 MB at 100,000 apps) would
// stay with it for a snapshot that no plain client asks. An encoded Body
// makes each form only when a client asks for it, the gzip form by
// compressing the bytes as they are encoded, never whole in memory.

// encoded is what a Body made by NewEncoded keeps besides the forms made.
type encoded struct {
	write     func(io.Writer) // writes the bytes, the same on every call
	plainOnce sync.Once
	sizeOnce  sync.Once
	sized     atomic.Bool // n and sum are set
}

// NewEncoded returns a Body whose bytes write writes, which must be the
// same on every call: they are made, as segments, for the first client
// that takes them plain, and compressed as they are written for the first
// that takes gzip. The Body's methods that need its length or checksum
// make the plain bytes unless a form has been made.
func NewEncoded(write func(io.Writer)) *Body {
	return &Body{enc: &encoded{write: write}}
}

// setSize records the length and checksum the first form made measured.
func (b *Body) setSize(n int, sum uint64) {
	b.enc.sizeOnce.Do(func() {
		b.n, b.sum = n, sum
		b.enc.sized.Store(true)
	})
}

// plain makes an encoded body's plain bytes, once.
func (b *Body) plain() {
	if b.enc == nil {
		return
	}
	b.enc.plainOnce.Do(func() {
		var segs Segments
		b.enc.write(&segs)
		s := NewSegmented(&segs)
		b.first = s.first
		b.setSize(s.n, s.sum)
	})
}

// sized makes sure an encoded body's length and checksum are known: made
// by a form already, else by its plain bytes.
func (b *Body) sized() {
	if b.enc != nil && !b.enc.sized.Load() {
		b.plain()
	}
}

// prepare makes the form a request needs, which also measures the body:
// the gzip one when the client takes it and the body is not known to be
// too small for it.
func (b *Body) prepare(gzip bool) {
	if b.enc == nil {
		return
	}
	if gzip && (!b.enc.sized.Load() || b.n >= minGzipBytes) {
		b.Gzipped()
		return
	}
	b.plain()
}

// gzipWriter compresses what is written to it, measuring it on the way.
type gzipWriter struct {
	fw    *flate.Writer
	crc32 uint32
	crc64 uint64
	n     int
}

func (g *gzipWriter) Write(p []byte) (int, error) {
	g.fw.Write(p) //nolint:errcheck // into a bytes.Buffer, which does not fail
	g.crc32 = crc32.Update(g.crc32, crc32.IEEETable, p)
	g.crc64 = crc64.Update(g.crc64, crc64Table, p)
	g.n += len(p)
	return len(p), nil
}
