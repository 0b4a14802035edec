package report

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/availmon/availmon/internal/inputerr"
	"github.com/availmon/availmon/period"
)

// ErrFormat is the error of a format ParseFormat does not know.
var ErrFormat = errors.New("invalid report format")

// Format is how a report is written.
type Format uint8

// The formats of a report.
const (
	JSON Format = iota
	CSV
	Table
)

// Formats lists the formats' names, for messages.
const Formats = "allowed formats: json (default), csv, table"

// String returns "json", "csv" or "table".
func (f Format) String() string {
	switch f {
	case CSV:
		return "csv"
	case Table:
		return "table"
	}
	return "json"
}

// ParseFormat reads a format's name; "" is JSON.
func ParseFormat(s string) (Format, error) {
	switch s {
	case "", "json":
		return JSON, nil
	case "csv":
		return CSV, nil
	case "table":
		return Table, nil
	}
	return JSON, inputerr.Refuse(ErrFormat, "format", s, "not a report format", Formats)
}

// Query is a report asked for: a calendar period in a time zone.
type Query struct {
	Name   string // the period as written: 2026-11
	Period period.Period
	Zone   *time.Location
	Format Format
}

// ParseQuery reads the period, the format and the time zone of a report;
// an empty tz is def. The errors wrap period.ErrPeriod, period.ErrTimeZone
// or ErrFormat, and say what is accepted.
func ParseQuery(per, format, tz string, def *time.Location) (Query, error) {
	p, err := period.Parse(per)
	if err != nil {
		return Query{}, err
	}
	f, err := ParseFormat(format)
	if err != nil {
		return Query{}, err
	}
	q := Query{Name: per, Period: p, Zone: def, Format: f}
	if q.Zone == nil {
		q.Zone = time.UTC
	}
	if tz != "" {
		if q.Zone, err = period.LoadLocation(tz); err != nil {
			return Query{}, err
		}
	}
	return q, nil
}

// ErrNotBegun is the error of Begun for a period that starts after the
// ledger's time.
var ErrNotBegun = errors.New("period has not begun")

// Begun checks that the period has begun by at, the time of the ledger's
// Book: a report of the future has nothing to say.
func (q Query) Begun(at time.Time) error {
	if r := q.Period.In(q.Zone); !r.Start.Before(at) {
		return fmt.Errorf("%w: %s begins at %s (in %s), after %s", ErrNotBegun, q.Name,
			r.Start.Format(time.RFC3339), q.Zone, at.In(q.Zone).Format(time.RFC3339))
	}
	return nil
}

// Key is the query's canonical form, for caching its answer.
func (q Query) Key() string {
	return strings.Join([]string{q.Period.String(), q.Zone.String(), q.Format.String()}, "\x00")
}
