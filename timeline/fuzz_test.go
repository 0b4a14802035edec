package timeline

import (
	"bytes"
	"errors"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// FuzzDecode feeds arbitrary bytes to UnmarshalBinary: it never panics,
// refuses with ErrCorrupt or ErrVersion, builds no more than a small
// multiple of its input, and what it accepts encodes to a fixed point that
// answers as the accepted record does.
func FuzzDecode(f *testing.F) {
	seed := func(ops ...op) {
		var r Record
		for _, o := range ops {
			o(&r)
		}
		b, err := r.View().AppendBinary(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	seed()
	seed(check(0, Up, h), check(10*m, Down, h), maint(h, 2*h, true), func(r *Record) { r.SetRemoved(at(3 * h)) })
	seed(check(0, Unknown, m), fill(-h, h, Partial), maint(-30*m, 0, true))
	seed(func(r *Record) { r.Check(day0, Up, m); flaps(r, 300) })
	seed(func(r *Record) { r.Check(day0, Up, m); flaps(r, 300); r.Check(day0.Add(30*h), Down, h) })
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{2})
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Record
		err := r.UnmarshalBinary(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
				t.Fatalf("error %v wraps neither ErrCorrupt nor ErrVersion", err)
			}
			return
		}
		v := r.View()
		if n := len(v.data) + int(unsafe.Sizeof(point{}))*len(v.idx()); n > 4*len(b)+64 {
			t.Fatalf("%d bytes decoded to a stream of %d", len(b), n)
		}
		enc, err := v.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		var again Record
		if err := again.UnmarshalBinary(enc); err != nil {
			t.Fatalf("re-encoding an accepted record: %v", err)
		}
		enc2, _ := again.View().AppendBinary(nil)
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not a fixed point:\n%x\n%x", enc, enc2)
		}
		from, to := instant(minSec), instant(inf)
		if r.st.first() < inf {
			from = instant(r.st.first()).Add(-time.Hour)
			to = instant(max(r.st.end, r.projTo)).Add(time.Hour)
		}
		if diff := cmp.Diff(v.Totals(from, to), again.View().Totals(from, to)); diff != "" {
			t.Fatalf("totals (-accepted +re-encoded):\n%s", diff)
		}
		if len(b) < 2000 { // outages walk every second of a long range
			if diff := cmp.Diff(v.Outages(from, to), again.View().Outages(from, to)); diff != "" {
				t.Fatalf("outages (-accepted +re-encoded):\n%s", diff)
			}
		}
	})
}

// Encodings that must be refused, each for its own reason.
func TestDecodeRefuses(t *testing.T) {
	var good Record
	good.Check(t0, Up, h)
	good.Check(t0.Add(m), Down, h)
	enc, _ := good.View().AppendBinary(nil)
	for _, tt := range []struct {
		name string
		b    []byte
		err  error
	}{
		{"empty", nil, ErrVersion},
		{"another version", []byte{9, 0}, ErrVersion},
		{"truncated", enc[:len(enc)-2], ErrCorrupt},
		{"trailing bytes", append(enc[:len(enc):len(enc)], 0), ErrCorrupt},
		{"a stream longer than the input", []byte{1, 0, 0, 0, 0, 0, 0, 200, 1}, ErrCorrupt},
		{"a token of no time", []byte{1, 0, 200, 200, 1, 0, 0, 0, 0, 3, 0, 0, 1, 0}, ErrCorrupt},
		{"a maintenance count past the input", []byte{1, 0, 0, 0, 0, 0, 0, 0, 100}, ErrCorrupt},
		{"an empty maintenance span", []byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 5, 0}, ErrCorrupt},
		{"a live day of no time", []byte{1, 1, 0, 0, 0, 0, 0, 0, 2, 0, 0}, ErrCorrupt},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r Record
			if err := r.UnmarshalBinary(tt.b); !errors.Is(err, tt.err) {
				t.Errorf("error %v, want %v", err, tt.err)
			}
		})
	}
}
