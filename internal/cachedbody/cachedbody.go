// Package cachedbody holds HTTP answers encoded once and served to many
// requests as ready bytes: each with a checksum for a strong ETag and a
// gzip form compressed on first use, to which a short per-request tail is
// appended at write time without compressing the whole again.
package cachedbody

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"hash/crc64"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Body is one answer's fixed part, encoded once and served to many
// requests: the bytes, a checksum of them, and (made on first use) their
// gzip compression. What varies little (an envelope's meta) is a short tail
// appended at write time, so a request costs a copy of ready bytes,
// whichever encoding the client asked for. Safe for concurrent use.
type Body struct {
	head  []byte   // the answer up to where the tail goes, when in one piece
	first *segment // else the first of its segments (segments.go)
	n     int      // its length
	sum   uint64   // CRC-64 of it, continued over the tail for the ETag
	enc   *encoded // how to make it, for a Body made by NewEncoded (encoded.go)

	gzOnce sync.Once
	gz     Gzip

	last atomic.Pointer[served] // the last tail's header values (served.go)
}

// New holds head, which must not change afterwards.
func New(head []byte) *Body {
	return &Body{head: head, n: len(head), sum: crc64.Checksum(head, crc64Table)}
}

// Head returns the body's bytes, which the caller must not change: for a
// segmented body, a copy of them in one piece.
func (b *Body) Head() []byte {
	b.plain()
	if b.first == nil {
		return b.head
	}
	out := make([]byte, 0, b.n)
	for seg := b.first; seg != nil; seg = seg.next {
		out = append(out, seg.b...)
	}
	return out
}

// Len is the length of the body's bytes.
func (b *Body) Len() int {
	b.sized()
	return b.n
}

// WriteBytes writes the body's bytes to w. Of a segmented body it holds
// only the segment being written: the caller need not hold b meanwhile.
func (b *Body) WriteBytes(w io.Writer) error {
	b.plain()
	if b.first == nil {
		_, err := w.Write(b.head)
		return err
	}
	return writeSegments(w, b.first)
}

// each calls f with the body's bytes in order, in one or more pieces.
func (b *Body) each(f func([]byte)) {
	if b.first == nil {
		f(b.head)
		return
	}
	for seg := b.first; seg != nil; seg = seg.next {
		f(seg.b)
	}
}

// ETag is the strong validator of the answer made of the body and tail,
// which the caller keeps the same for every request of a body: equal tags
// then mean equal bytes (RFC 9110, 8.8.3). The gzip answer is another
// representation and gets its own tag.
func (b *Body) ETag(tail []byte, gzipped bool) string {
	b.sized()
	var buf [48]byte
	out := append(buf[:0], '"')
	out = strconv.AppendUint(out, crc64.Update(b.sum, crc64Table, tail), 36)
	out = append(out, '-')
	out = strconv.AppendUint(out, uint64(b.n+len(tail)), 36)
	if gzipped {
		out = append(out, "-gzip"...)
	}
	return string(append(out, '"'))
}

var crc64Table = crc64.MakeTable(crc64.ECMA)

// minGzipBytes is the size under which compressing is not worth a
// Content-Encoding: the header costs about what it saves.
const minGzipBytes = 1024

// Gzipped returns the gzip start of the body, compressed on first use; ok is
// false when the body is too small to be worth compressing.
func (b *Body) Gzipped() (g *Gzip, ok bool) {
	if b.enc == nil && b.n < minGzipBytes {
		return nil, false
	}
	b.gzOnce.Do(func() { b.gz = newGzip(b) })
	if b.n < minGzipBytes { // an encoded body found small
		return nil, false
	}
	return &b.gz, true
}

// GzippedFor is Gzipped for a request with these Accept-Encoding headers:
// ok is false, and nothing is compressed, when the client does not take
// gzip.
func (b *Body) GzippedFor(acceptEncoding []string) (g *Gzip, ok bool) {
	if !AcceptsGzip(acceptEncoding) || b.enc == nil && b.n < minGzipBytes {
		return nil, false
	}
	return b.Gzipped()
}

// Gzip is the start of a gzip member: its header and a deflate stream
// of head that ends on a byte boundary and is not final, so that more
// deflate blocks can follow it. WriteTo appends a tail as stored blocks and
// closes the member, which costs a checksum of the tail only.
type Gzip struct {
	start []byte
	crc   uint32 // CRC-32 of the uncompressed head
	n     int    // length of the uncompressed head
}

// Gziper is a gzip member header: deflate, no name, no time, unknown OS.
var Gziper = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// gzipLevel is the compression level of the bodies. This runs once per
// snapshot, while every gzip request of the snapshot waits for it: level 2
// compresses a list of apps like /api/apps three to five times as fast as
// the default level (6), to an answer 4% larger (BenchmarkGzipLevels); at
// 100,000 apps the default level took a large part of a cycle's interval.
const gzipLevel = 2

func newGzip(b *Body) Gzip {
	var buf bytes.Buffer
	if b.enc == nil {
		buf.Grow(b.n/8 + 64)
	}
	buf.Write(Gziper)
	fw, err := flate.NewWriter(&buf, gzipLevel)
	if err != nil {
		panic("cachedbody: flate: " + err.Error()) // only for a bad level
	}
	gw := &gzipWriter{fw: fw}
	if b.enc != nil {
		b.enc.write(gw)
		b.setSize(gw.n, gw.crc64)
	} else {
		b.each(func(p []byte) { gw.Write(p) }) //nolint:errcheck // it does not fail
	}
	// A sync flush ends the data on a byte boundary without a final block.
	fw.Flush() //nolint:errcheck
	return Gzip{start: Trimmed(buf.Bytes()), crc: gw.crc32, n: gw.n}
}

// Size is the length of the member WriteTo writes for a tail of n bytes.
func (g *Gzip) Size(n int) int {
	blocks := n/maxStored + 1
	return len(g.start) + n + 5*blocks + 8
}

// maxStored is the most a stored deflate block holds.
const maxStored = 65535

// WriteTo writes the member: the compressed head, tail in stored blocks
// (the last one final), and the trailer with the checksum and length of
// head and tail together.
func (g *Gzip) WriteTo(w io.Writer, tail []byte) error {
	if _, err := w.Write(g.start); err != nil {
		return err
	}
	var hdr [5]byte
	for rest := tail; ; {
		n := min(len(rest), maxStored)
		hdr[0] = 0 // BFINAL 0, BTYPE 00 (stored); we are on a byte boundary
		if n == len(rest) {
			hdr[0] = 1
		}
		binary.LittleEndian.PutUint16(hdr[1:], uint16(n))
		binary.LittleEndian.PutUint16(hdr[3:], ^uint16(n))
		if _, err := w.Write(hdr[:]); err != nil {
			return err
		}
		if _, err := w.Write(rest[:n]); err != nil {
			return err
		}
		rest = rest[n:]
		if len(rest) == 0 {
			break
		}
	}
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:], crc32.Update(g.crc, crc32.IEEETable, tail))
	binary.LittleEndian.PutUint32(trailer[4:], uint32(g.n+len(tail)))
	_, err := w.Write(trailer[:])
	return err
}

// ETagMatch is If-None-Match's weak comparison (RFC 9110, 13.1.2): any
// listed tag, or "*", whose opaque part equals etag's.
func ETagMatch(headers []string, etag string) bool {
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

// AcceptsGzip tells whether Accept-Encoding allows gzip: named with a
// non-zero q, or matched by "*" when not named.
func AcceptsGzip(headers []string) bool {
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
