package availmon

import (
	"bytes"
	"encoding/json"
	"sync/atomic"
)

// The largest answers (/api/apps, /api/metrics/summary) are megabytes at
// 10,000 apps. encoding/json encodes a value whole into a buffer of its own
// and keeps that buffer in a pool for the next encoding, so one such answer
// left a buffer of twice its size alive for good, besides the answer. They
// are encoded an element at a time instead, into a buffer sized from the
// last answer of the same kind: the answer is then the only large
// allocation, made once.

// bodyHints are the sizes of the last large answers, to size the next.
type bodyHints struct {
	apps, summary atomic.Int64
	metrics       atomic.Int64 // the snapshot part of /metrics (metricsserve.go)
}

// streamJSON writes a value as encoding/json would, but its large lists an
// element at a time.
type streamJSON struct {
	buf *bytes.Buffer
	enc *json.Encoder
	err error
}

func newStreamJSON(buf *bytes.Buffer) *streamJSON {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return &streamJSON{buf: buf, enc: enc}
}

// value writes v whole.
func (s *streamJSON) value(v any) {
	if s.err != nil {
		return
	}
	if s.err = s.enc.Encode(v); s.err == nil {
		s.buf.Truncate(s.buf.Len() - 1) // Encode's newline
	}
}

// list writes items as a JSON array, as encoding/json writes a slice.
func list[T any](s *streamJSON, items []T) {
	if items == nil {
		s.buf.WriteString("null")
		return
	}
	lazyList[T]{n: len(items), elem: func(i int) T { return items[i] }}.write(s)
}

// lazyList is a JSON array whose elements are made one at a time, as they
// are written: a list of every app is then never whole in memory besides
// its bytes (as []appJSON, 9 MB at 50,000 apps, every snapshot a poller
// asks for it).
type lazyList[T any] struct {
	n    int
	elem func(i int) T
}

func (l lazyList[T]) write(s *streamJSON) {
	s.buf.WriteByte('[')
	var v T // one, reused: encoding it through an interface moves it to the heap
	for i := range l.n {
		if i > 0 {
			s.buf.WriteByte(',')
		}
		v = l.elem(i)
		s.value(&v)
	}
	s.buf.WriteByte(']')
}

// summaryHeadJSON is summaryJSON without its lists, which must be its last
// members.
type summaryHeadJSON struct {
	TotalRequests       int64    `json:"total_requests"`
	TotalErrors         int64    `json:"total_errors"`
	AverageResponseTime *float64 `json:"average_response_time"`
	UptimePercentage    *float64 `json:"uptime_percentage"`
}

// lazySummary is summaryJSON with its lists made as they are written.
type lazySummary struct {
	head      summaryHeadJSON
	apps      lazyList[appSummaryJSON]
	locations lazyList[locationSummaryItemJSON]
}

func (s *streamJSON) summary(v *lazySummary) {
	s.value(v.head)
	if s.err != nil {
		return
	}
	s.buf.Truncate(s.buf.Len() - 1) // the head's "}"
	s.buf.WriteString(`,"apps_summary":`)
	v.apps.write(s)
	s.buf.WriteString(`,"locations_summary":`)
	v.locations.write(s)
	s.buf.WriteByte('}')
}

// largeEnvelopeHead is envelopeHead for the large answers, in a buffer of
// the hint's size, which it then updates.
func largeEnvelopeHead(v any, hint *atomic.Int64) []byte {
	buf := bytes.NewBuffer(make([]byte, 0, hint.Load()+hint.Load()/64))
	buf.WriteString(`{"data":`)
	s := newStreamJSON(buf)
	switch v := v.(type) {
	case []appJSON:
		list(s, v)
	case lazyList[appJSON]:
		v.write(s)
	case lazySummary:
		s.summary(&v)
	default:
		s.value(v)
	}
	if s.err != nil {
		// Only our own types are encoded here; failing to encode them is a
		// bug, not a request error.
		panic("availmon: encoding snapshot: " + s.err.Error())
	}
	hint.Store(int64(buf.Len()))
	return trimmed(buf.Bytes())
}

// trimmed returns b, or a copy of it when b's array is much larger: a
// buffer that grew by doubling can be twice the answer, which lives as long
// as its snapshot.
func trimmed(b []byte) []byte {
	if cap(b)-len(b) > len(b)/8 {
		return bytes.Clone(b)
	}
	return b
}
