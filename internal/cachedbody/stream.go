package cachedbody

import (
	"bytes"
	"encoding/json"
	"io"
)

// The largest answers are megabytes at 10,000 apps. encoding/json encodes
// a value whole into a buffer of its own and keeps that buffer in a pool
// for the next encoding, so one such answer would leave a buffer of twice
// its size alive for good, besides the answer. A Stream encodes them an
// element at a time instead, into a buffer the caller sizes from the last
// answer of the same kind: the answer is then the only large allocation,
// made once.

// Stream writes values as encoding/json would (HTML not escaped), but its
// large lists an element at a time. The first error sticks.
type Stream struct {
	buf  *bytes.Buffer
	enc  *json.Encoder
	err  error
	sink io.Writer // where buf's bytes go between a list's elements; nil: buf is the output
}

// NewStream returns a Stream that writes to buf.
func NewStream(buf *bytes.Buffer) *Stream {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return &Stream{buf: buf, enc: enc}
}

// NewStreamTo returns a Stream that writes to sink (Segments, or a
// compressor), through a buffer of its own that it empties into sink
// between a list's elements once it holds spillBytes: the answer is then
// never whole in one buffer. Flush empties the buffer at the end.
func NewStreamTo(sink io.Writer) *Stream {
	s := NewStream(bytes.NewBuffer(make([]byte, 0, spillBytes+spillBytes/4)))
	s.sink = sink
	return s
}

// spillBytes is what a segmented Stream's buffer holds before it is
// emptied: a few elements' worth, kept from one list element to the next.
const spillBytes = 16 << 10

// spill empties the buffer into the sink when it holds spillBytes. It runs
// between elements only, so that what Buf's user just wrote is still in
// the buffer to be trimmed.
func (s *Stream) spill() {
	if s.sink != nil && s.buf.Len() >= spillBytes {
		s.Flush()
	}
}

// Flush empties the buffer of a Stream made by NewStreamTo into its sink;
// the buffer of a Stream made by NewStream is its output and stays as it
// is. An error of the sink sticks as the Stream's.
func (s *Stream) Flush() {
	if s.sink != nil && s.buf.Len() > 0 {
		if _, err := s.sink.Write(s.buf.Bytes()); err != nil && s.err == nil {
			s.err = err
		}
		s.buf.Reset()
	}
}

// Buf is the buffer written to, for the punctuation between values.
func (s *Stream) Buf() *bytes.Buffer { return s.buf }

// Err is the first encoding error, nil if none.
func (s *Stream) Err() error { return s.err }

// Value writes v whole.
func (s *Stream) Value(v any) {
	if s.err != nil {
		return
	}
	if s.err = s.enc.Encode(v); s.err == nil {
		s.buf.Truncate(s.buf.Len() - 1) // Encode's newline
	}
}

// List writes items as a JSON array, as encoding/json writes a slice.
func List[T any](s *Stream, items []T) {
	if items == nil {
		s.buf.WriteString("null")
		return
	}
	LazyList[T]{N: len(items), Elem: func(i int) T { return items[i] }}.Write(s)
}

// LazyList is a JSON array of N elements made one at a time by Elem, as
// they are written: a list of every app is then never whole in memory
// besides its bytes.
type LazyList[T any] struct {
	N    int
	Elem func(i int) T
}

// Write writes the array.
func (l LazyList[T]) Write(s *Stream) {
	s.buf.WriteByte('[')
	var v T // one, reused: encoding it through an interface moves it to the heap
	for i := range l.N {
		if i > 0 {
			s.buf.WriteByte(',')
		}
		v = l.Elem(i)
		s.Value(&v)
		s.spill()
	}
	s.buf.WriteByte(']')
}
