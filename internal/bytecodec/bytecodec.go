// Package bytecodec reads the binary files availmon writes (the state file
// and the ledger section inside it) without trusting them: every read is
// checked against the bytes left, and the first problem sticks, so a
// decoder reads on to its end and looks at Err once.
package bytecodec

import (
	"encoding/binary"
	"fmt"
)

// Decoder reads from the bytes it was made with. After a failure every read
// returns the zero value: a decoder never panics on short or hostile
// input, and never allocates more than the bytes left could hold.
type Decoder struct {
	b       []byte
	err     error
	corrupt error
}

// New returns a Decoder of b whose errors wrap corrupt, the reading
// package's sentinel error.
func New(b []byte, corrupt error) Decoder { return Decoder{b: b, corrupt: corrupt} }

// Err is the first failure, nil if none.
func (d *Decoder) Err() error { return d.err }

// Len is the number of bytes left.
func (d *Decoder) Len() int { return len(d.b) }

// Fail records a failure, unless one came first, and drops the bytes left.
func (d *Decoder) Fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", d.corrupt, fmt.Sprintf(format, args...))
	}
	d.b = nil
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if len(d.b) < 1 {
		d.Fail("truncated")
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.Fail("truncated varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Varint reads a signed varint.
func (d *Decoder) Varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.Fail("truncated varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Uint32 reads a little-endian uint32.
func (d *Decoder) Uint32() uint32 {
	b := d.Bytes(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

// Uint64 reads a little-endian uint64.
func (d *Decoder) Uint64() uint64 {
	b := d.Bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// Bytes reads n bytes, which alias the decoder's input; nil when fewer
// are left.
func (d *Decoder) Bytes(n int) []byte {
	if n < 0 || n > len(d.b) {
		d.Fail("truncated: want %d bytes, have %d", n, len(d.b))
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	return out
}

// Count reads a number of items that take at least minSize bytes each, and
// refuses it when the bytes left cannot hold them, so that a caller can
// allocate that many.
func (d *Decoder) Count(minSize int) int {
	v := d.Uvarint()
	if v > uint64(len(d.b)/minSize) {
		d.Fail("%d items cannot fit in %d bytes", v, len(d.b))
		return 0
	}
	return int(v)
}

// Str reads a uvarint length and that many bytes.
func (d *Decoder) Str() string { return string(d.Bytes(d.Count(1))) }
