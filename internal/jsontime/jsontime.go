// Package jsontime encodes instants as the API's JSON timestamps: ISO 8601
// in UTC with milliseconds, the zero time as null ("not known yet").
//
//	type check struct {
//		At jsontime.Time `json:"at"`
//	}
package jsontime

import "time"

// Time is an ISO 8601 UTC timestamp with milliseconds; the zero time is
// encoded as null ("not known yet").
type Time time.Time

// Format is the layout of a Time's encoding, as time.Time.Format reads it.
const Format = "2006-01-02T15:04:05.000Z07:00"

// MarshalJSON is called for every timestamp of every app when a snapshot
// is encoded (100,000 a cycle at 100,000 apps), where time.AppendFormat's
// reading of the layout was a third of the encoding: the digits are
// written by hand instead.
func (t Time) MarshalJSON() ([]byte, error) {
	if time.Time(t).IsZero() {
		return []byte("null"), nil
	}
	return AppendQuoted(make([]byte, 0, len(Format)+2), time.Time(t)), nil
}

// AppendQuoted appends t in UTC as a JSON string in Format, as
// AppendFormat writes it.
func AppendQuoted(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		// Not four digits: rare enough for the general formatter.
		b = append(b, '"')
		return append(t.AppendFormat(b, Format), '"')
	}
	hour, minute, sec := t.Clock()
	ms := t.Nanosecond() / int(time.Millisecond)
	b = append(b, '"',
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+int(month)/10), byte('0'+int(month)%10), '-',
		byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':',
		byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), '.',
		byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z', '"')
	return b
}
