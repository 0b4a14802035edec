package cachedbody

import (
	"hash/crc64"
	"io"
)

// The largest answers (every app, 30 MB at 100,000 apps) are made anew for
// each snapshot, and a client reading one slowly holds it: under a
// poller's 64 connections at one a cycle, whole answers would keep the last
// two or three snapshots' alive together, besides the one being made. Such an
// answer is kept as a chain of segments instead: a request walks the chain
// holding only the segment it writes, so once a newer snapshot replaces
// the answer's, the segments every request has passed are garbage, and an
// old answer shrinks as its readers go on rather than staying whole until
// the last one ends. Fixed-size segments also fit the holes older answers
// leave in the heap, where an answer in one piece a little larger than the
// last needs fresh pages.

// DefaultSegmentSize is the size of a Segments' parts when it sets none.
const DefaultSegmentSize = 256 << 10

// segment is a part of a segmented body and the link to the next.
type segment struct {
	b    []byte
	next *segment
}

// Segments is an io.Writer that keeps what is written in segments of
// Size bytes, for NewSegmented. The zero Segments is empty and ready.
type Segments struct {
	Size int // of each segment; 0 is DefaultSegmentSize

	first, last *segment
	n           int
}

// Write appends p. It never fails.
func (s *Segments) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if s.last == nil || len(s.last.b) == cap(s.last.b) {
			size := s.Size
			if size <= 0 {
				size = DefaultSegmentSize
			}
			seg := &segment{b: make([]byte, 0, size)}
			if s.last == nil {
				s.first = seg
			} else {
				s.last.next = seg
			}
			s.last = seg
		}
		k := min(len(p), cap(s.last.b)-len(s.last.b))
		s.last.b = append(s.last.b, p[:k]...)
		p = p[k:]
	}
	s.n += n
	return n, nil
}

// Len is the number of bytes written.
func (s *Segments) Len() int { return s.n }

// NewSegmented holds what s has been written as a Body. s must not be
// written to afterwards.
func NewSegmented(s *Segments) *Body {
	if s.last != nil {
		s.last.b = Trimmed(s.last.b)
	}
	b := &Body{first: s.first, n: s.n}
	for seg := b.first; seg != nil; seg = seg.next {
		b.sum = crc64.Update(b.sum, crc64Table, seg.b)
	}
	*s = Segments{Size: s.Size}
	return b
}

// writeSegments writes the chain from seg on, holding no more of it than
// the segment being written: the caller must hold no reference to the
// chain's start for the segments written to become garbage.
func writeSegments(w io.Writer, seg *segment) error {
	for ; seg != nil; seg = seg.next {
		if _, err := w.Write(seg.b); err != nil {
			return err
		}
	}
	return nil
}
