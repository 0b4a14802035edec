package availmon

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"hash/crc64"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
)

// encodedBody is one answer's fixed part, encoded once per snapshot: the
// bytes, a checksum of them, and (made on first use) their gzip
// compression. The envelope's meta is a short tail appended at write time,
// so a request costs a copy of ready bytes, whichever encoding the client
// asked for.
type encodedBody struct {
	head []byte // the answer up to where the tail goes
	sum  uint64 // CRC-64 of head, continued over the tail for the ETag

	gzOnce sync.Once
	gz     gzipHead
}

// newEncodedBody holds head, which must not change afterwards.
func newEncodedBody(head []byte) *encodedBody {
	return &encodedBody{head: head, sum: crc64.Checksum(head, crc64Table)}
}

// etag is the strong validator of the answer made of the body and tail:
// the tail is the same for every request of a snapshot (its meta is as of
// the snapshot), so equal tags mean equal bytes (RFC 9110, 8.8.3). The
// gzip answer is another representation and gets its own tag.
func (b *encodedBody) etag(tail []byte, gzipped bool) string {
	var buf [48]byte
	out := append(buf[:0], '"')
	out = strconv.AppendUint(out, crc64.Update(b.sum, crc64Table, tail), 36)
	out = append(out, '-')
	out = strconv.AppendUint(out, uint64(len(b.head)+len(tail)), 36)
	if gzipped {
		out = append(out, "-gzip"...)
	}
	return string(append(out, '"'))
}

var crc64Table = crc64.MakeTable(crc64.ECMA)

// minGzipBytes is the size under which compressing is not worth a
// Content-Encoding: the header costs about what it saves.
const minGzipBytes = 1024

// gzipped returns the gzip start of the body, compressed on first use; ok is
// false when the body is too small to be worth compressing.
func (b *encodedBody) gzipped() (g *gzipHead, ok bool) {
	if len(b.head) < minGzipBytes {
		return nil, false
	}
	b.gzOnce.Do(func() { b.gz = newGzipHead(b.head) })
	return &b.gz, true
}

// gzipHead is the start of a gzip member: its header and a deflate stream
// of head that ends on a byte boundary and is not final, so that more
// deflate blocks can follow it. writeTo appends a tail as stored blocks and
// closes the member, which costs a checksum of the tail only.
type gzipHead struct {
	start []byte
	crc   uint32 // CRC-32 of the uncompressed head
	n     int    // length of the uncompressed head
}

// gzipHeader is a gzip member header: deflate, no name, no time, unknown OS.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

func newGzipHead(head []byte) gzipHead {
	var buf bytes.Buffer
	buf.Grow(len(head)/8 + 64)
	buf.Write(gzipHeader)
	// The default level: this runs once per snapshot, and a poller on a
	// slow link gains from every byte saved.
	fw, err := flate.NewWriter(&buf, flate.DefaultCompression)
	if err != nil {
		panic("availmon: flate: " + err.Error()) // only for a bad level
	}
	fw.Write(head) //nolint:errcheck // a bytes.Buffer does not fail
	// A sync flush ends the data on a byte boundary without a final block.
	fw.Flush() //nolint:errcheck
	return gzipHead{start: bytes.Clone(buf.Bytes()), crc: crc32.ChecksumIEEE(head), n: len(head)}
}

// size is the length of the member writeTo writes for a tail of n bytes.
func (g *gzipHead) size(n int) int {
	blocks := n/maxStored + 1
	return len(g.start) + n + 5*blocks + 8
}

// maxStored is the most a stored deflate block holds.
const maxStored = 65535

// writeTo writes the member: the compressed head, tail in stored blocks
// (the last one final), and the trailer with the checksum and length of
// head and tail together.
func (g *gzipHead) writeTo(w io.Writer, tail []byte) error {
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

// lazyBody is an envelope's fixed part, encoded on first use from what v
// returns.
type lazyBody struct {
	once sync.Once
	b    *encodedBody
}

func (l *lazyBody) get(v func() any) *encodedBody {
	l.once.Do(func() { l.b = newEncodedBody(envelopeHead(v())) })
	return l.b
}

// getLarge is get for the large answers, encoded by largeEnvelopeHead.
func (l *lazyBody) getLarge(hint *atomic.Int64, v func() any) *encodedBody {
	l.once.Do(func() { l.b = newEncodedBody(largeEnvelopeHead(v(), hint)) })
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
