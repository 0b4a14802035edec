package period_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon/period"
)

func TestParseIn(t *testing.T) {
	tests := []struct {
		name, in, zone string
		unit           period.Unit
		want           span
	}{
		{"day UTC", "2026-11-25", "UTC", period.Day,
			span{"2026-11-25T00:00:00+00:00", "2026-11-26T00:00:00+00:00", 24 * time.Hour}},
		{"leap day", "2028-02-29", "UTC", period.Day,
			span{"2028-02-29T00:00:00+00:00", "2028-03-01T00:00:00+00:00", 24 * time.Hour}},
		{"Berlin summer time begins: 23h", "2026-03-29", "Europe/Berlin", period.Day,
			span{"2026-03-29T00:00:00+01:00", "2026-03-30T00:00:00+02:00", 23 * time.Hour}},
		{"Berlin summer time ends: 25h", "2026-10-25", "Europe/Berlin", period.Day,
			span{"2026-10-25T00:00:00+02:00", "2026-10-26T00:00:00+01:00", 25 * time.Hour}},
		{"Lord Howe half-hour change: 23h30m", "2026-10-04", "Australia/Lord_Howe", period.Day,
			span{"2026-10-04T00:00:00+10:30", "2026-10-05T00:00:00+11:00", 23*time.Hour + 30*time.Minute}},
		{"Kathmandu", "2026-11-25", "Asia/Kathmandu", period.Day,
			span{"2026-11-25T00:00:00+05:45", "2026-11-26T00:00:00+05:45", 24 * time.Hour}},
		{"Havana skips midnight: the day starts at 01:00", "2026-03-08", "America/Havana", period.Day,
			span{"2026-03-08T01:00:00-04:00", "2026-03-09T00:00:00-04:00", 23 * time.Hour}},
		{"Havana shows midnight twice: the day starts at the first", "2026-11-01", "America/Havana", period.Day,
			span{"2026-11-01T00:00:00-04:00", "2026-11-02T00:00:00-05:00", 25 * time.Hour}},
		{"Santiago sets clocks back at 24:00: the day before is 25h", "2026-04-04", "America/Santiago", period.Day,
			span{"2026-04-04T00:00:00-03:00", "2026-04-05T00:00:00-04:00", 25 * time.Hour}},
		{"Samoa skipped 2011-12-30: an empty day", "2011-12-30", "Pacific/Apia", period.Day,
			span{"2011-12-31T00:00:00+14:00", "2011-12-31T00:00:00+14:00", 0}},
		{"ISO week 1 starts in December", "2026-W01", "UTC", period.Week,
			span{"2025-12-29T00:00:00+00:00", "2026-01-05T00:00:00+00:00", 7 * 24 * time.Hour}},
		{"ISO week 47", "2026-W47", "UTC", period.Week,
			span{"2026-11-16T00:00:00+00:00", "2026-11-23T00:00:00+00:00", 7 * 24 * time.Hour}},
		{"week 53 of 2020 ends in 2021", "2020-W53", "UTC", period.Week,
			span{"2020-12-28T00:00:00+00:00", "2021-01-04T00:00:00+00:00", 7 * 24 * time.Hour}},
		{"week 53 of 2026", "2026-W53", "UTC", period.Week,
			span{"2026-12-28T00:00:00+00:00", "2027-01-04T00:00:00+00:00", 7 * 24 * time.Hour}},
		{"week 1 of 2021 starts in January", "2021-W01", "UTC", period.Week,
			span{"2021-01-04T00:00:00+00:00", "2021-01-11T00:00:00+00:00", 7 * 24 * time.Hour}},
		{"Berlin week with the change back", "2026-W43", "Europe/Berlin", period.Week,
			span{"2026-10-19T00:00:00+02:00", "2026-10-26T00:00:00+01:00", 7*24*time.Hour + time.Hour}},
		{"month", "2026-11", "UTC", period.Month,
			span{"2026-11-01T00:00:00+00:00", "2026-12-01T00:00:00+00:00", 30 * 24 * time.Hour}},
		{"February of a leap year", "2028-02", "UTC", period.Month,
			span{"2028-02-01T00:00:00+00:00", "2028-03-01T00:00:00+00:00", 29 * 24 * time.Hour}},
		{"Berlin March", "2026-03", "Europe/Berlin", period.Month,
			span{"2026-03-01T00:00:00+01:00", "2026-04-01T00:00:00+02:00", 31*24*time.Hour - time.Hour}},
		{"December ends at the new year", "2026-12", "Asia/Kathmandu", period.Month,
			span{"2026-12-01T00:00:00+05:45", "2027-01-01T00:00:00+05:45", 31 * 24 * time.Hour}},
		{"Q1", "2026-Q1", "UTC", period.Quarter,
			span{"2026-01-01T00:00:00+00:00", "2026-04-01T00:00:00+00:00", 90 * 24 * time.Hour}},
		{"Q4 in Berlin", "2026-Q4", "Europe/Berlin", period.Quarter,
			span{"2026-10-01T00:00:00+02:00", "2027-01-01T00:00:00+01:00", 92*24*time.Hour + time.Hour}},
		{"year", "2026", "UTC", period.Year,
			span{"2026-01-01T00:00:00+00:00", "2027-01-01T00:00:00+00:00", 365 * 24 * time.Hour}},
		{"leap year in Berlin", "2028", "Europe/Berlin", period.Year,
			span{"2028-01-01T00:00:00+01:00", "2029-01-01T00:00:00+01:00", 366 * 24 * time.Hour}},
		{"first year", "1970", "UTC", period.Year,
			span{"1970-01-01T00:00:00+00:00", "1971-01-01T00:00:00+00:00", 365 * 24 * time.Hour}},
		{"last year", "9999", "UTC", period.Year,
			span{"9999-01-01T00:00:00+00:00", "10000-01-01T00:00:00+00:00", 365 * 24 * time.Hour}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := period.Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if p.Unit() != tt.unit {
				t.Errorf("Unit() = %v, want %v", p.Unit(), tt.unit)
			}
			if p.String() != tt.in {
				t.Errorf("String() = %q, want %q", p.String(), tt.in)
			}
			loc := zone(t, tt.zone)
			if diff := cmp.Diff(tt.want, spanOf(p.In(loc), loc)); diff != "" {
				t.Errorf("In(%s) (-want +got):\n%s", tt.zone, diff)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	const forms = "; allowed forms: 2026-11-25 (day), 2026-W47 (ISO week), 2026-11 (month), 2026-Q4 (quarter), 2026 (year)"
	tests := []struct{ in, want string }{
		{"2026-13", `period "2026-13": month must be 01-12`},
		{"2026-00", `period "2026-00": month must be 01-12`},
		{"2026-02-29", `period "2026-02-29": day must be 01-28 in 2026-02`},
		{"2026-11-31", `period "2026-11-31": day must be 01-30 in 2026-11`},
		{"2026-11-00", `period "2026-11-00": day must be 01-30 in 2026-11`},
		{"2026-13-01", `period "2026-13-01": month must be 01-12`},
		{"2026-Q0", `period "2026-Q0": quarter must be Q1-Q4`},
		{"2026-Q5", `period "2026-Q5": quarter must be Q1-Q4`},
		{"2026-W00", `period "2026-W00": week must be W01-W53 in 2026`},
		{"2025-W53", `period "2025-W53": week must be W01-W52 in 2025`},
		{"2026-W54", `period "2026-W54": week must be W01-W53 in 2026`},
		{"1969", `period "1969": year must be 1970-9999`},
		{"0000-01", `period "0000-01": year must be 1970-9999`},
		{"", `period "": not a calendar period`},
		{"26", `period "26": not a calendar period`},
		{"20261", `period "20261": not a calendar period`},
		{"12026", `period "12026": not a calendar period`},
		{"+2026", `period "+2026": not a calendar period`},
		{"-2026", `period "-2026": not a calendar period`},
		{" 2026", `period " 2026": not a calendar period`},
		{"2026 ", `period "2026 ": not a calendar period`},
		{"2026-11\n", `period "2026-11\n": not a calendar period`},
		{"2026-1", `period "2026-1": not a calendar period`},
		{"2026-11-5", `period "2026-11-5": not a calendar period`},
		{"2026-w47", `period "2026-w47": not a calendar period`},
		{"2026-q4", `period "2026-q4": not a calendar period`},
		{"2026-W47-3", `period "2026-W47-3": not a calendar period`},
		{"2026W47", `period "2026W47": not a calendar period`},
		{"20261125", `period "20261125": not a calendar period`},
		{"2026/11/25", `period "2026/11/25": not a calendar period`},
		{"2026-11-25T00:00:00Z", `period "2026-11-25T00:00:00Z": not a calendar period`},
		{"２０２６", `period "２０２６": not a calendar period`},
		{"2026-Q+4", `period "2026-Q+4": not a calendar period`},
		{"2026-W+7", `period "2026-W+7": not a calendar period`},
		{"30d", `period "30d": not a calendar period`},
		{"2026-11-25xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
			`period "2026-11-25xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"...: not a calendar period`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, err := period.Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want an error", tt.in, p)
			}
			if !errors.Is(err, period.ErrPeriod) {
				t.Errorf("error %v does not wrap ErrPeriod", err)
			}
			if diff := cmp.Diff(tt.want+forms, err.Error()); diff != "" {
				t.Errorf("error text (-want +got):\n%s", diff)
			}
			if p != (period.Period{}) {
				t.Errorf("Parse returned %v with its error, want the zero Period", p)
			}
		})
	}
}

// TestWeeksOfYears checks which years have a week 53 against the rule of
// ISO 8601: those that start on a Thursday, and leap years that start on a
// Wednesday.
func TestWeeksOfYears(t *testing.T) {
	var got, want []int
	for y := 2000; y <= 2040; y++ {
		if _, err := period.Parse(time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC).Format("2006") + "-W53"); err == nil {
			got = append(got, y)
		}
		jan1 := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC).Weekday()
		leap := time.Date(y, 12, 31, 0, 0, 0, 0, time.UTC).YearDay() == 366
		if jan1 == time.Thursday || leap && jan1 == time.Wednesday {
			want = append(want, y)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("years with a week 53 (-want +got):\n%s", diff)
	}
}

func TestNextPrev(t *testing.T) {
	tests := []struct{ in, prev, next string }{
		{"2026-12-31", "2026-12-30", "2027-01-01"},
		{"2028-03-01", "2028-02-29", "2028-03-02"},
		{"2026-W01", "2025-W52", "2026-W02"},
		{"2026-W53", "2026-W52", "2027-W01"},
		{"2021-W01", "2020-W53", "2021-W02"},
		{"2026-01", "2025-12", "2026-02"},
		{"2026-12", "2026-11", "2027-01"},
		{"2026-Q1", "2025-Q4", "2026-Q2"},
		{"2026-Q4", "2026-Q3", "2027-Q1"},
		{"2026", "2025", "2027"},
		{"9999", "9998", "10000"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p := mustParse(t, tt.in)
			got := []string{p.Prev().String(), p.Next().String(), p.Next().Prev().String()}
			if diff := cmp.Diff([]string{tt.prev, tt.next, tt.in}, got); diff != "" {
				t.Errorf("Prev, Next, Next.Prev (-want +got):\n%s", diff)
			}
		})
	}
}

func TestContaining(t *testing.T) {
	tests := []struct {
		name, at, zone string
		unit           period.Unit
		want, prev     string
	}{
		{"UTC day", "2026-11-25T23:59:59Z", "UTC", period.Day, "2026-11-25", "2026-11-24"},
		{"Berlin is already tomorrow", "2026-11-25T23:00:00Z", "Europe/Berlin", period.Day, "2026-11-26", "2026-11-25"},
		{"Kathmandu day starts at 18:15 UTC", "2026-11-25T18:15:00Z", "Asia/Kathmandu", period.Day, "2026-11-26", "2026-11-25"},
		{"Kathmandu a second before", "2026-11-25T18:14:59Z", "Asia/Kathmandu", period.Day, "2026-11-25", "2026-11-24"},
		{"Berlin repeated hour, second time", "2026-10-25T01:30:00Z", "Europe/Berlin", period.Day, "2026-10-25", "2026-10-24"},
		{"Havana repeated midnight hour, second time", "2026-11-01T05:30:00Z", "America/Havana", period.Day, "2026-11-01", "2026-10-31"},
		{"Santiago shows 23:30 again after 24:00", "2026-04-05T03:30:00Z", "America/Santiago", period.Day, "2026-04-04", "2026-04-03"},
		{"Sunday is in the week of the Monday before", "2026-11-22T12:00:00Z", "UTC", period.Week, "2026-W47", "2026-W46"},
		{"Monday starts a week", "2026-11-23T00:00:00Z", "UTC", period.Week, "2026-W48", "2026-W47"},
		{"January 1st in the last week of the year before", "2027-01-01T12:00:00Z", "UTC", period.Week, "2026-W53", "2026-W52"},
		{"December 29th in week 1", "2025-12-29T00:00:00Z", "UTC", period.Week, "2026-W01", "2025-W52"},
		{"month", "2026-11-25T12:00:00Z", "UTC", period.Month, "2026-11", "2026-10"},
		{"Berlin January from 23:00 UTC", "2026-12-31T23:00:00Z", "Europe/Berlin", period.Month, "2027-01", "2026-12"},
		{"quarter", "2026-11-25T12:00:00Z", "UTC", period.Quarter, "2026-Q4", "2026-Q3"},
		{"quarter's first instant", "2026-04-01T00:00:00Z", "UTC", period.Quarter, "2026-Q2", "2026-Q1"},
		{"year", "2026-11-25T12:00:00Z", "UTC", period.Year, "2026", "2025"},
		{"Lord Howe year from 13:00 UTC", "2026-12-31T13:00:00Z", "Australia/Lord_Howe", period.Year, "2027", "2026"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at, loc := utc(t, tt.at), zone(t, tt.zone)
			p := period.Containing(tt.unit, at, loc)
			if diff := cmp.Diff([]string{tt.want, tt.prev}, []string{p.String(), p.Prev().String()}); diff != "" {
				t.Errorf("Containing and Prev (-want +got):\n%s", diff)
			}
			if !p.In(loc).Contains(at) {
				t.Errorf("%v in %s is %v, which does not hold %v", p, tt.zone, spanOf(p.In(loc), loc), at)
			}
		})
	}
}

func TestZeroValues(t *testing.T) {
	var p period.Period
	if p.String() != "" || p.Unit() != 0 || p.In(time.UTC) != (period.Range{}) || p.Next() != p {
		t.Errorf("zero Period: String %q, Unit %v, In %v, Next %v", p.String(), p.Unit(), p.In(time.UTC), p.Next())
	}
	if got := period.Containing(0, time.Now(), time.UTC); got != p {
		t.Errorf("Containing(0, ...) = %v, want the zero Period", got)
	}
	if got := period.Unit(9).String(); got != "Unit(9)" {
		t.Errorf("Unit(9).String() = %q", got)
	}
	var names []string
	for _, u := range []period.Unit{period.Day, period.Week, period.Month, period.Quarter, period.Year} {
		names = append(names, u.String())
	}
	if diff := cmp.Diff([]string{"day", "week", "month", "quarter", "year"}, names); diff != "" {
		t.Errorf("unit names (-want +got):\n%s", diff)
	}
}

// TestYearsPastZoneTables covers the last day of a leap year that a zone's
// table of changes no longer lists (Go computes those years from a rule,
// and its ZoneBounds ends them a day early: golang/go#81583).
func TestYearsPastZoneTables(t *testing.T) {
	for _, name := range []string{"Europe/Berlin", "Australia/Lord_Howe", "America/New_York"} {
		loc := zone(t, name)
		at := utc(t, "2040-12-31T12:00:00Z")
		p := period.Containing(period.Day, at, loc)
		if !p.In(loc).Contains(at) {
			t.Errorf("%s: %v does not hold %v", name, p, at)
		}
		n := 0
		for range mustParse(t, "2040-12").In(loc).Split(mustStep(t, "1h"), loc) {
			n++
		}
		if n != 31*24 {
			t.Errorf("%s: December 2040 has %d hours, want %d", name, n, 31*24)
		}
	}
}
