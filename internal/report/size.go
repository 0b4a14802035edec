package report

import (
	"bytes"
	"encoding/csv"
)

// A report's JSON or CSV at 100,000 apps is some 30 MB. Appended into a
// slice that grows as it goes, it would be copied a dozen times, with the
// last two copies (one a quarter larger than the other, or twice as large
// for a bytes.Buffer) alive at once at the end; and a buffer left much
// larger than the report is copied once more to be kept. Estimate sizes
// the buffer from a sample of the rows, so the report is written once into
// one allocation that fits it.

// estimateSamples is how many rows Estimate encodes: spread over the
// rows, they cover each kind (services, locations, apps) in proportion.
const estimateSamples = 256

// Estimate is about how many bytes the report takes in format f (JSON or
// CSV), a little more rather than less: the rows sampled, scaled to all.
func (r *Report) Estimate(f Format) int {
	head := append(r.appendJSONHead(nil), "]}"...)
	if f == CSV {
		head = r.appendCSVHead(nil)
	}
	n := len(r.Rows)
	if n == 0 {
		return len(head)
	}
	step := max(n/estimateSamples, 1)
	var buf bytes.Buffer
	buf.Grow(64 << 10)
	sampled := 0
	var cw *csv.Writer
	var rec, tail []string
	if f == CSV {
		cw, rec, tail = csv.NewWriter(&buf), make([]string, len(csvHeader)), r.csvTail()
	}
	for i := 0; i < n; i += step {
		if f == CSV {
			r.csvRow(cw, rec, tail, i)
		} else {
			buf.Write(r.Rows[i].appendJSON(buf.AvailableBuffer()))
			buf.WriteByte(',')
		}
		sampled++
	}
	if cw != nil {
		cw.Flush()
	}
	per := float64(buf.Len()) / float64(sampled)
	est := float64(len(head)) + per*float64(n)
	return int(est + est/32 + 64)
}
