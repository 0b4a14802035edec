package availmon

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/availmon/availmon/internal/cachedbody"
	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/timeline"
)

// The answer of /api/availability is written by hand, a row at a time,
// rather than through encoding/json: at 10,000 apps it is a few megabytes
// of numbers, and reflection over a struct per row would take most of its
// time.

// availabilityAnswer makes the answer to q from the snapshot's Book.
func (s *snapshot) availabilityAnswer(q *availQuery) availAnswer {
	b := s.book
	lq := ledger.Query{From: q.rng.Start, To: q.rng.End, Steps: q.bounds}
	rows := q.rows(b)
	buf := make([]byte, 0, 64+len(rows)*(260+24*len(q.bounds)))
	buf = append(buf, `{"data":{"from":`...)
	buf = appendTime(buf, q.rng.Start)
	buf = append(buf, `,"to":`...)
	buf = appendTime(buf, q.rng.End)
	buf = append(buf, `,"window":`...)
	buf = appendOptString(buf, q.window)
	buf = append(buf, `,"period":`...)
	buf = appendOptString(buf, q.per)
	buf = append(buf, `,"time_zone":`...)
	buf = appendJSONString(buf, q.loc.String())
	buf = append(buf, `,"by":`...)
	buf = appendJSONString(buf, q.by.String())
	buf = append(buf, `,"step":`...)
	buf = appendOptString(buf, q.step)
	buf = append(buf, `,"steps":`...)
	buf = appendStepBounds(buf, q.bounds)
	buf = append(buf, `,"items":[`...)
	for n, i := range rows {
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = q.appendRow(buf, b, i, lq)
	}
	buf = append(buf, "]}"...)
	return availAnswer{body: cachedbody.New(trimmed(buf)), count: len(rows)}
}

// rows are the book indexes of the answer's rows, in the book's order.
func (q *availQuery) rows(b *ledger.Book) []int {
	var out []int
	switch {
	case q.by == ledger.App && q.appsFiltered:
		for _, i := range q.apps {
			if q.location < 0 || b.AppLocation(i) == b.Name(ledger.Location, q.location) {
				out = append(out, i)
			}
		}
	case q.by == ledger.App:
		for i := range b.Len(ledger.App) {
			if q.location < 0 || b.AppLocation(i) == b.Name(ledger.Location, q.location) {
				out = append(out, i)
			}
		}
	case q.by == ledger.Location && q.location >= 0:
		out = []int{q.location}
	default:
		out = make([]int, b.Len(q.by))
		for i := range out {
			out[i] = i
		}
	}
	return out
}

func (q *availQuery) appendRow(buf []byte, b *ledger.Book, i int, lq ledger.Query) []byte {
	var f ledger.Figures
	buf = append(buf, `{"name":`...)
	buf = appendJSONString(buf, b.Name(q.by, i))
	switch q.by {
	case ledger.App:
		f = b.App(i, lq)
		buf = append(buf, `,"location":`...)
		buf = appendJSONString(buf, b.AppLocation(i))
	case ledger.Location:
		apps := b.LocationApps(i)
		if q.appsFiltered {
			apps = intersectSorted(append([]int(nil), q.apps...), apps)
		}
		f = b.Location(i, apps, lq)
		buf = append(buf, `,"apps":`...)
		buf = strconv.AppendInt(buf, int64(len(apps)), 10)
	default:
		f = b.Service(i, lq)
	}
	buf = append(buf, `,"removed":`...)
	buf = strconv.AppendBool(buf, !b.Removed(q.by, i).IsZero())
	buf = appendTotals(buf, f.Totals)
	buf = append(buf, `,"downtime_seconds":`...)
	buf = strconv.AppendInt(buf, int64(f.Downtime/time.Second), 10)
	buf = append(buf, `,"outages":`...)
	buf = strconv.AppendInt(buf, int64(f.Outages), 10)
	buf = append(buf, `,"approximate":`...)
	buf = strconv.AppendBool(buf, f.Approximate)
	if f.Steps != nil {
		buf = append(buf, `,"steps":[`...)
		for n, t := range f.Steps {
			if n > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '[')
			for k, d := range []time.Duration{t.Up, t.Down, t.Unknown + t.Partial, t.Maintenance} {
				if k > 0 {
					buf = append(buf, ',')
				}
				buf = strconv.AppendInt(buf, int64(d/time.Second), 10)
			}
			buf = append(buf, ']')
		}
		buf = append(buf, ']')
	}
	return append(buf, '}')
}

// appendTotals writes the seconds by state, availability and coverage.
func appendTotals(buf []byte, t timeline.Totals) []byte {
	for _, m := range []struct {
		name string
		d    time.Duration
	}{{"up_seconds", t.Up}, {"down_seconds", t.Down}, {"unknown_seconds", t.Unknown + t.Partial}, {"maintenance_seconds", t.Maintenance}} {
		buf = append(buf, `,"`...)
		buf = append(buf, m.name...)
		buf = append(buf, `":`...)
		buf = strconv.AppendInt(buf, int64(m.d/time.Second), 10)
	}
	a, ok := t.Availability()
	buf = append(buf, `,"availability":`...)
	buf = appendPercent(buf, a, ok)
	c, ok := t.Coverage()
	buf = append(buf, `,"coverage":`...)
	return appendPercent(buf, c, ok)
}

// appendPercent writes 100*v to four decimals (99.9942: a month's minute
// of downtime shows), or null.
func appendPercent(buf []byte, v float64, ok bool) []byte {
	if !ok || math.IsNaN(v) {
		return append(buf, "null"...)
	}
	return strconv.AppendFloat(buf, roundTo(100*v, 4), 'f', -1, 64)
}

func appendStepBounds(buf []byte, bounds []time.Time) []byte {
	if bounds == nil {
		return append(buf, "null"...)
	}
	buf = append(buf, '[')
	for i := 1; i < len(bounds); i++ {
		if i > 1 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"start":`...)
		buf = appendTime(buf, bounds[i-1])
		buf = append(buf, `,"end":`...)
		buf = appendTime(buf, bounds[i])
		buf = append(buf, '}')
	}
	return append(buf, ']')
}

// appendTime writes t as jsonTime does.
func appendTime(buf []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(buf, "null"...)
	}
	buf = append(buf, '"')
	buf = t.UTC().AppendFormat(buf, timeFormat)
	return append(buf, '"')
}

func appendOptString(buf []byte, s string) []byte {
	if s == "" {
		return append(buf, "null"...)
	}
	return appendJSONString(buf, s)
}

// appendJSONString writes s as encoding/json does without HTML escaping.
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			case c == '\n':
				buf = append(buf, '\\', 'n')
			case c == '\r':
				buf = append(buf, '\\', 'r')
			case c == '\t':
				buf = append(buf, '\\', 't')
			case c < 0x20:
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				buf = append(buf, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			buf = append(buf, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			buf = append(buf, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			buf = append(buf, s[i:i+n]...)
		}
		i += n
	}
	return append(buf, '"')
}
