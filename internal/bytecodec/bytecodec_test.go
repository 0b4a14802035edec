package bytecodec

import (
	"encoding/binary"
	"errors"
	"testing"
)

var errBad = errors.New("bad")

// Every read past the end, or of a count the bytes left cannot hold, fails
// with the caller's sentinel; the first failure sticks and later reads
// return zero values.
func TestDecoderBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		b    []byte
		read func(d *Decoder)
	}{
		{"empty uvarint", nil, func(d *Decoder) { d.Uvarint() }},
		{"cut varint", []byte{0x80}, func(d *Decoder) { d.Varint() }},
		{"empty byte", nil, func(d *Decoder) { d.Byte() }},
		{"short uint32", []byte{1, 2, 3}, func(d *Decoder) { d.Uint32() }},
		{"short uint64", []byte{1, 2, 3, 4, 5, 6, 7}, func(d *Decoder) { d.Uint64() }},
		{"negative bytes", []byte{1}, func(d *Decoder) { d.Bytes(-1) }},
		{"count past the data", []byte{5, 0, 0}, func(d *Decoder) { d.Count(1) }},
		{"huge count", binary.AppendUvarint(nil, 1<<62), func(d *Decoder) { d.Count(1) }},
		{"string past the data", []byte{4, 'a'}, func(d *Decoder) { d.Str() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := New(c.b, errBad)
			c.read(&d)
			if !errors.Is(d.Err(), errBad) {
				t.Fatalf("err %v, want one wrapping errBad", d.Err())
			}
			first := d.Err()
			if d.Uvarint() != 0 || d.Byte() != 0 || d.Bytes(0) != nil && d.Len() != 0 || d.Err() != first {
				t.Errorf("reads after a failure: err %v, want the first (%v) and zero values", d.Err(), first)
			}
		})
	}
	d := New(append(binary.AppendUvarint(nil, 3), "abc"...), errBad)
	if s := d.Str(); s != "abc" || d.Err() != nil || d.Len() != 0 {
		t.Errorf("Str = %q, %v, %d left", s, d.Err(), d.Len())
	}
}

// FuzzDecoder: no input makes a read panic or return more than was there.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte{3, 'a', 'b', 'c', 1, 2, 3, 4})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		d := New(b, errBad)
		for d.Err() == nil && d.Len() > 0 {
			n := d.Len()
			switch d.Byte() % 6 {
			case 0:
				d.Uvarint()
			case 1:
				d.Varint()
			case 2:
				d.Uint32()
			case 3:
				d.Uint64()
			case 4:
				if s := d.Str(); len(s) > n {
					t.Fatalf("a string of %d bytes from %d", len(s), n)
				}
			case 5:
				if c := d.Count(2); c > n/2 {
					t.Fatalf("a count of %d from %d bytes", c, n)
				}
			}
		}
		if d.Err() != nil && !errors.Is(d.Err(), errBad) {
			t.Fatalf("err %v", d.Err())
		}
	})
}
