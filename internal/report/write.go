package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/availmon/availmon/internal/ledger"
)

// Write writes r in format f.
func (r *Report) Write(w io.Writer, f Format) error {
	switch f {
	case CSV:
		return r.WriteCSV(w)
	case Table:
		return r.WriteTable(w)
	}
	if err := r.WriteJSON(w); err != nil {
		return err
	}
	_, err := w.Write([]byte{'\n'})
	return err
}

// The JSON and CSV are written by hand, a row at a time: at 10,000 apps a
// report is megabytes of numbers, made once per snapshot.

// AppendJSON appends r as a JSON object: the period, its range and zone,
// and the rows under "items".
func (r *Report) AppendJSON(b []byte) []byte {
	b = r.appendJSONHead(b)
	for n := range r.Len() {
		if n > 0 {
			b = append(b, ',')
		}
		w := r.Row(n)
		b = w.appendJSON(b)
	}
	return append(b, "]}"...)
}

// A report's JSON or CSV at 100,000 apps is some 30 MB. WriteJSON and
// WriteCSV hand it to w a few kilobytes at a time, so that the server can
// keep it in segments (cachedbody.Segments) and the command send it on,
// never the whole in one buffer: an allocation of 30 MB in one piece fits
// none of the holes the last answers left in the heap and takes fresh
// pages, which stay resident after it is freed.

// chunkBytes is about what WriteJSON hands w at once.
const chunkBytes = 16 << 10

// WriteJSON writes r as AppendJSON appends it, a few rows at a time.
func (r *Report) WriteJSON(w io.Writer) error {
	b := r.appendJSONHead(make([]byte, 0, chunkBytes+chunkBytes/4))
	for n := range r.Len() {
		if n > 0 {
			b = append(b, ',')
		}
		row := r.Row(n)
		b = row.appendJSON(b)
		if len(b) >= chunkBytes {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	_, err := w.Write(append(b, "]}"...))
	return err
}

// appendJSONHead appends the JSON up to the first row.
func (r *Report) appendJSONHead(b []byte) []byte {
	b = append(b, `{"period":`...)
	b = appendString(b, r.Period)
	b = append(b, `,"from":`...)
	b = appendTime(b, r.From)
	b = append(b, `,"to":`...)
	b = appendTime(b, r.To)
	b = append(b, `,"time_zone":`...)
	b = appendString(b, r.Zone.String())
	b = append(b, `,"complete":`...)
	b = strconv.AppendBool(b, r.Complete)
	return append(b, `,"items":[`...)
}

func (w *Row) appendJSON(b []byte) []byte {
	b = append(b, `{"kind":`...)
	b = appendString(b, w.Kind.String())
	b = append(b, `,"name":`...)
	b = appendString(b, w.Name)
	switch w.Kind {
	case ledger.App:
		b = append(b, `,"location":`...)
		b = appendString(b, w.Location)
	case ledger.Location:
		b = append(b, `,"apps":`...)
		b = strconv.AppendInt(b, int64(w.Apps), 10)
	}
	b = append(b, `,"removed":`...)
	b = strconv.AppendBool(b, !w.Removed.IsZero())
	b = append(b, `,"removed_at":`...)
	b = appendTime(b, w.Removed)
	a, ok := w.Availability()
	b = append(b, `,"availability":`...)
	b = appendPercent(b, a, ok)
	c, ok := w.Coverage()
	b = append(b, `,"coverage":`...)
	b = appendPercent(b, c, ok)
	for _, f := range w.seconds() {
		b = append(b, `,"`...)
		b = append(b, f.name...)
		b = append(b, `":`...)
		b = strconv.AppendInt(b, seconds(f.d), 10)
	}
	b = append(b, `,"outages":`...)
	b = strconv.AppendInt(b, int64(w.Outages), 10)
	b = append(b, `,"recovered":`...)
	b = strconv.AppendInt(b, int64(w.Recovered), 10)
	b = append(b, `,"mttr_seconds":`...)
	if w.Recovered == 0 {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, seconds(w.MTTR), 10)
	}
	b = append(b, `,"approximate":`...)
	b = strconv.AppendBool(b, w.Approximate)
	return append(b, '}')
}

type namedDuration struct {
	name string
	d    time.Duration
}

// seconds are the row's times, in the order of the CSV's columns.
func (w *Row) seconds() [6]namedDuration {
	return [6]namedDuration{
		{"up_seconds", w.Up}, {"down_seconds", w.Down}, {"unknown_seconds", w.Unknown + w.Partial},
		{"maintenance_seconds", w.Maintenance}, {"downtime_seconds", w.Downtime},
		{"longest_outage_seconds", w.Longest},
	}
}

func seconds(d time.Duration) int64 { return int64(d / time.Second) }

// csvHeader is the first record of a report's CSV.
var csvHeader = []string{"kind", "name", "location", "apps", "removed", "removed_at", "availability", "coverage",
	"up_seconds", "down_seconds", "unknown_seconds", "maintenance_seconds", "downtime_seconds",
	"longest_outage_seconds", "outages", "recovered", "mttr_seconds", "approximate",
	"period", "from", "to", "time_zone"}

// AppendCSV appends r as CSV (RFC 4180): a header, then a record per row.
// Percentages have four decimals, times are whole seconds, a figure that
// does not exist (the availability of a row never seen) is empty. Every
// record repeats the period, its range and zone, so that reports of
// several periods concatenate into one table.
func (r *Report) AppendCSV(b []byte) []byte {
	buf := bytes.NewBuffer(b)
	cw := csv.NewWriter(buf)
	cw.Write(csvHeader) //nolint:errcheck // a bytes.Buffer does not fail
	rec, tail := make([]string, len(csvHeader)), r.csvTail()
	for n := range r.Len() {
		r.csvRow(cw, rec, tail, n)
	}
	cw.Flush()
	return buf.Bytes()
}

// WriteCSV writes r as AppendCSV appends it, through csv.Writer's buffer of
// a few kilobytes.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader) //nolint:errcheck // its error sticks: cw.Error
	rec, tail := make([]string, len(csvHeader)), r.csvTail()
	for n := range r.Len() {
		r.csvRow(cw, rec, tail, n)
	}
	cw.Flush()
	return cw.Error()
}

// csvTail is the cells every record ends with.
func (r *Report) csvTail() []string {
	return []string{r.Period, r.From.UTC().Format(time.RFC3339), r.To.UTC().Format(time.RFC3339), r.Zone.String()}
}

// csvRow writes row n's record, using rec as scratch.
func (r *Report) csvRow(cw *csv.Writer, rec, tail []string, n int) {
	w := r.Row(n)
	w.csvRecord(rec)
	copy(rec[len(rec)-len(tail):], tail)
	cw.Write(rec) //nolint:errcheck // the writers here do not fail
}

func (w *Row) csvRecord(rec []string) {
	rec[0], rec[1], rec[2], rec[3] = w.Kind.String(), w.Name, w.Location, ""
	if w.Kind == ledger.Location {
		rec[3] = strconv.Itoa(w.Apps)
	}
	rec[4], rec[5] = strconv.FormatBool(!w.Removed.IsZero()), ""
	if !w.Removed.IsZero() {
		rec[5] = w.Removed.UTC().Format(time.RFC3339)
	}
	rec[6], rec[7] = percentCell(w.Availability()), percentCell(w.Coverage())
	for k, f := range w.seconds() {
		rec[8+k] = strconv.FormatInt(seconds(f.d), 10)
	}
	rec[14], rec[15], rec[16] = strconv.Itoa(w.Outages), strconv.Itoa(w.Recovered), ""
	if w.Recovered > 0 {
		rec[16] = strconv.FormatInt(seconds(w.MTTR), 10)
	}
	rec[17] = strconv.FormatBool(w.Approximate)
}

// percentCell is a percentage's CSV cell: empty when there is none.
func percentCell(v float64, ok bool) string {
	if !ok {
		return ""
	}
	return string(appendPercent(nil, v, ok))
}

// WriteTable writes r for a terminal: aligned columns, times as durations.
func (r *Report) WriteTable(out io.Writer) error {
	state := "complete"
	if !r.Complete {
		state = "so far"
	}
	fmt.Fprintf(out, "Availability report %s (%s), %s to %s, %s\n\n", r.Period, r.Zone,
		r.From.In(r.Zone).Format(time.DateTime), r.To.In(r.Zone).Format(time.DateTime), state)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "KIND\tNAME\tLOCATION\tAVAILABILITY\tCOVERAGE\tDOWNTIME\tMAINTENANCE\tOUTAGES\tLONGEST\tMTTR\tNOTE\t\n")
	for n := range r.Len() {
		w := r.Row(n)
		a, ok := w.Availability()
		c, okc := w.Coverage()
		mttr := "-"
		if w.Recovered > 0 {
			mttr = w.MTTR.String()
		}
		note := ""
		switch {
		case !w.Removed.IsZero() && w.Approximate:
			note = "removed, approximate"
		case !w.Removed.IsZero():
			note = "removed"
		case w.Approximate:
			note = "approximate"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t\n", w.Kind, w.Name, w.Location,
			percentText(a, ok), percentText(c, okc), w.Downtime, w.Maintenance, w.Outages, w.Longest, mttr, note)
	}
	return tw.Flush()
}

func percentText(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return string(appendPercent(nil, v, ok)) + "%"
}

// appendPercent writes 100*v to four decimals (99.9942: a month's minute
// of downtime shows), as /api/availability does, or null.
func appendPercent(b []byte, v float64, ok bool) []byte {
	if !ok || math.IsNaN(v) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, math.Round(100*v*1e4)/1e4, 'f', -1, 64)
}

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, timeFormat)
	return append(b, '"')
}

// appendString writes s as a JSON string. Names come from the
// configuration and label values; encoding/json escapes them correctly,
// and a report calls it once per row.
func appendString(b []byte, s string) []byte {
	if plainASCII(s) { // names mostly: what encoding/json writes as it is
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}

// plainASCII reports whether encoding/json writes s between quotes as it
// is: printable ASCII with no quote, backslash or HTML character.
func plainASCII(s string) bool {
	for i := range len(s) {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// timeFormat is the API's: RFC 3339 with milliseconds, in UTC.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"
