package period_test

import (
	"testing"
	"time"
	_ "time/tzdata" // the zones the tests name, on machines without a zoneinfo

	"github.com/availmon/availmon/period"
)

// zone loads a time zone the tests rely on.
func zone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// span is a Range written out for readable diffs: both ends on the zone's
// clock with its offset, and the length.
type span struct {
	Start, End string
	Length     time.Duration
}

func spanOf(r period.Range, loc *time.Location) span {
	const layout = "2006-01-02T15:04:05-07:00"
	return span{Start: r.Start.In(loc).Format(layout), End: r.End.In(loc).Format(layout), Length: r.Duration()}
}

// mustParse parses a period the test knows to be valid.
func mustParse(t testing.TB, s string) period.Period {
	t.Helper()
	p, err := period.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustStep(t testing.TB, s string) period.Step {
	t.Helper()
	st, err := period.ParseStep(s)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// utc parses an RFC 3339 instant.
func utc(t testing.TB, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
