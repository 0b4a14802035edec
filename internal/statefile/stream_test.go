package statefile

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/timeline"
)

// pieceWriter passes on at most max bytes a call, as a short-buffered
// writer might, to show that the stream encoder does not depend on how its
// writes are taken.
type pieceWriter struct {
	w   io.Writer
	max int
}

func (p *pieceWriter) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		k := min(len(b), p.max)
		m, err := p.w.Write(b[:k])
		n += m
		if err != nil {
			return n, err
		}
		b = b[k:]
	}
	return n, nil
}

// streamed is s encoded by a stream encoder whose ledger section comes in
// pieces of at most piece bytes.
func streamed(t testing.TB, s *State, piece int) []byte {
	t.Helper()
	var buf bytes.Buffer
	e := NewStreamEncoder(&pieceWriter{w: &buf, max: 1000}, nil)
	e.stateWith(s, piecesOf(s.Ledger, piece))
	n, err := e.Flush()
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("Flush says %d bytes written, the writer got %d", n, buf.Len())
	}
	return buf.Bytes()
}

// piecesOf hands raw (nil: an empty ledger) to emit in pieces of n bytes,
// as a Book's EachBinary does record by record.
func piecesOf(raw []byte, n int) func(func([]byte) error) error {
	if raw == nil {
		raw = emptyLedger
	}
	return func(emit func([]byte) error) error {
		for p := raw; len(p) > 0; {
			k := min(n, len(p))
			if err := emit(p[:k]); err != nil {
				return err
			}
			p = p[k:]
		}
		return nil
	}
}

// A stream encoder writes what Encode returns, byte for byte, however its
// ledger comes in pieces; a large state (a ledger section of megabytes)
// included.
func TestStreamEncoderWritesTheEncoding(t *testing.T) {
	large := &State{SavedAt: t0, Ledger: bigLedger(t)}
	for i := range 500 {
		large.Apps = append(large.Apps, App{Name: "app-" + string(rune('a'+i%26)) + time.Duration(i).String(), Location: "l",
			Checks: failingChecks(100), Last: last(Down, t0, time.Second, "HTTP 500")})
	}
	small, err := Decode(ledgerState())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		s     *State
		piece int
	}{
		{"empty", &State{SavedAt: t0}, 1},
		{"ledger, bytes one by one", small, 1},
		{"ledger, in one piece", small, 1 << 30},
		{"large, 4 KB pieces", large, 4096},
		{"large, pieces above the spill size", large, 3 * spillBytes},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := Encode(tt.s)
			if got := streamed(t, tt.s, tt.piece); !bytes.Equal(got, want) {
				t.Fatalf("the stream encoder wrote %d bytes unlike Encode's %d", len(got), len(want))
			}
		})
	}
}

// bigLedger is the ledger section of a ledger of a few hundred records.
func bigLedger(t testing.TB) []byte {
	t.Helper()
	var lay ledger.Layout
	lay.Locations = []string{"l"}
	for i := range 300 {
		lay.Apps = append(lay.Apps, ledger.AppRef{Name: "app-" + time.Duration(i).String(), Location: "l"})
	}
	l := ledger.New(ledger.Options{})
	l.SetLayout(t0, lay, nil)
	for k := range 200 {
		at := t0.Add(time.Duration(k) * time.Minute)
		for i := range lay.Apps {
			l.Check(i, at, []timeline.State{timeline.Up, timeline.Down}[(k+i)%2], time.Minute, false)
		}
		l.EndCycle(at, time.Minute, nil, nil)
	}
	return l.AppendBinary(nil)
}

// A ledger that gives other bytes the second time it is asked (one that
// changed between measuring and writing) fails the encoding rather than
// writing a section whose length is wrong.
func TestStreamEncoderLedgerChanged(t *testing.T) {
	calls := 0
	e := NewStreamEncoder(io.Discard, nil)
	e.LedgerPieces(func(emit func([]byte) error) error {
		calls++
		return emit(bytes.Repeat([]byte{1}, calls))
	})
	if _, err := e.Flush(); err == nil {
		t.Fatal("a ledger that changed between its two passes was encoded")
	}
}

// failWriter fails every write.
type failWriter struct{ calls int }

func (w *failWriter) Write([]byte) (int, error) {
	w.calls++
	return 0, errors.New("disk full")
}

// After a failed write the encoding goes on, writing nothing more, and
// Flush returns the first error.
func TestStreamEncoderWriteFails(t *testing.T) {
	w := &failWriter{}
	e := NewStreamEncoder(w, nil)
	large := &State{SavedAt: t0, Ledger: bigLedger(t)}
	e.stateWith(large, piecesOf(large.Ledger, 100))
	if n, err := e.Flush(); err == nil || n != 0 {
		t.Fatalf("Flush after failed writes = %d, %v; want 0 and the error", n, err)
	}
	if w.calls != 1 {
		t.Errorf("the writer was called %d times after it failed, want 1", w.calls)
	}
}

// The ledger records Decode returns share no bytes with what it read: a
// monitor drops the file's bytes and keeps the records.
func TestDecodeRecordsOwnTheirBytes(t *testing.T) {
	b := ledgerState()
	s, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if s.Records == nil || s.Records.Len() != 4 {
		t.Fatalf("Records = %v, want the 4 records of the ledger", s.Records)
	}
	want := bytes.Clone(s.Ledger)
	clear(b)
	if got := s.Records.Book(t0).AppendBinary(nil); !bytes.Equal(got, want) {
		t.Fatalf("the records after the bytes read were cleared encode to %d bytes unlike the section's %d", len(got), len(want))
	}
	if s, err := Decode(Encode(&State{SavedAt: t0})); err != nil || s.Records != nil || s.Ledger != nil {
		t.Fatalf("an empty ledger decodes to %v, %d bytes, %v; want none", s.Records, len(s.Ledger), err)
	}
}
