package period

import (
	"fmt"
	"strconv"
	"time"
)

// Unit is the length of a calendar period.
type Unit uint8

// The units of calendar periods.
const (
	Day     Unit = iota + 1
	Week         // ISO 8601 week: Monday to Sunday, named by the year of its Thursday
	Month        //
	Quarter      // January-March is Q1
	Year         //
)

// String returns "day", "week", "month", "quarter" or "year".
func (u Unit) String() string {
	switch u {
	case Day:
		return "day"
	case Week:
		return "week"
	case Month:
		return "month"
	case Quarter:
		return "quarter"
	case Year:
		return "year"
	}
	return "Unit(" + strconv.Itoa(int(u)) + ")"
}

// The years Parse accepts.
const (
	minYear = 1970
	maxYear = 9999
)

// Period is a calendar period named without a time zone: a day, an ISO
// week, a month, a quarter or a year. In gives its instants in a zone.
// Periods are comparable with ==. The zero Period is no period: its String
// is "" and its range is the zero Range.
type Period struct {
	unit Unit
	// The first civil day of the period; for a week, its Monday.
	year  int
	month time.Month
	day   int
}

// Parse reads a calendar period in one of the forms
//
//	2026-11-25  day
//	2026-W47    ISO week (Monday to Sunday; W01 holds the year's first Thursday)
//	2026-11     month
//	2026-Q4     quarter
//	2026        year
//
// with a year from 1970 to 9999, digits zero-padded as shown, and nothing
// else: no spaces, signs, lower-case letters or ISO week days. A week
// W53 exists only in the years that have one (2020, 2026). The error
// wraps ErrPeriod and lists these forms.
func Parse(s string) (Period, error) {
	bad := func(reason string) (Period, error) {
		return Period{}, refuse(ErrPeriod, "period", s, reason, periodForms)
	}
	unit, ok := shape(s)
	if !ok {
		return bad("not a calendar period")
	}
	year := atoi(s[:4])
	if year < minYear || year > maxYear {
		return bad(fmt.Sprintf("year must be %d-%d", minYear, maxYear))
	}
	switch unit {
	case Year:
		return civil(Year, year, time.January, 1), nil
	case Quarter:
		q := atoi(s[6:])
		if q < 1 || q > 4 {
			return bad("quarter must be Q1-Q4")
		}
		return civil(Quarter, year, time.Month(3*q-2), 1), nil
	case Week:
		w, n := atoi(s[6:]), weeksIn(year)
		if w < 1 || w > n {
			return bad(fmt.Sprintf("week must be W01-W%02d in %04d", n, year))
		}
		return civil(Week, year, time.January, isoWeekOneMonday(year)+7*(w-1)), nil
	}
	month := atoi(s[5:7])
	if month < 1 || month > 12 {
		return bad("month must be 01-12")
	}
	if unit == Month {
		return civil(Month, year, time.Month(month), 1), nil
	}
	day, n := atoi(s[8:]), daysIn(year, time.Month(month))
	if day < 1 || day > n {
		return bad(fmt.Sprintf("day must be 01-%02d in %s", n, s[:7]))
	}
	return civil(Day, year, time.Month(month), day), nil
}

// shape tells which form s has, by its punctuation and digits alone.
func shape(s string) (Unit, bool) {
	if len(s) < 4 || !digits(s[:4]) {
		return 0, false
	}
	switch {
	case len(s) == 4:
		return Year, true
	case len(s) == 7 && s[4] == '-' && s[5] == 'Q' && digits(s[6:]):
		return Quarter, true
	case len(s) == 7 && s[4] == '-' && digits(s[5:]):
		return Month, true
	case len(s) == 8 && s[4] == '-' && s[5] == 'W' && digits(s[6:]):
		return Week, true
	case len(s) == 10 && s[4] == '-' && s[7] == '-' && digits(s[5:7]) && digits(s[8:]):
		return Day, true
	}
	return 0, false
}

func digits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// atoi reads a short run of ASCII digits that shape has checked.
func atoi(s string) int {
	n := 0
	for i := range len(s) {
		n = 10*n + int(s[i]-'0')
	}
	return n
}

// civil builds a period from a civil day, normalised as time.Date does
// (month 13 is January of the next year).
func civil(u Unit, year int, month time.Month, day int) Period {
	y, m, d := time.Date(year, month, day, 0, 0, 0, 0, time.UTC).Date()
	return Period{unit: u, year: y, month: m, day: d}
}

func daysIn(year int, month time.Month) int {
	return time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// weeksIn is the number of ISO weeks of a year: 53 when December 28th,
// always in the year's last week, is in week 53.
func weeksIn(year int) int {
	_, w := time.Date(year, time.December, 28, 0, 0, 0, 0, time.UTC).ISOWeek()
	return w
}

// isoWeekOneMonday is the day of January (0 or less for December of the
// year before) on which week 1 starts: the Monday of the week of January 4th.
func isoWeekOneMonday(year int) int {
	wd := time.Date(year, time.January, 4, 0, 0, 0, 0, time.UTC).Weekday()
	return 4 - daysSinceMonday(wd)
}

func daysSinceMonday(wd time.Weekday) int { return (int(wd) + 6) % 7 }

// Unit returns the period's unit; 0 for the zero Period.
func (p Period) Unit() Unit { return p.unit }

// String returns the period in the form Parse reads, so that Parse(p.String())
// gives p back for every period in the years Parse accepts.
func (p Period) String() string {
	switch p.unit {
	case Day:
		return fmt.Sprintf("%04d-%02d-%02d", p.year, p.month, p.day)
	case Week:
		y, w := time.Date(p.year, p.month, p.day, 0, 0, 0, 0, time.UTC).ISOWeek()
		return fmt.Sprintf("%04d-W%02d", y, w)
	case Month:
		return fmt.Sprintf("%04d-%02d", p.year, p.month)
	case Quarter:
		return fmt.Sprintf("%04d-Q%d", p.year, (p.month+2)/3)
	case Year:
		return fmt.Sprintf("%04d", p.year)
	}
	return ""
}

// Next returns the period of the same unit that follows p; Prev the one
// before. They may leave the years Parse accepts: the result still has a
// range and a String, which Parse refuses.
func (p Period) Next() Period { return p.shift(1) }

// Prev returns the period of the same unit before p.
func (p Period) Prev() Period { return p.shift(-1) }

func (p Period) shift(n int) Period {
	switch p.unit {
	case Day:
		return civil(Day, p.year, p.month, p.day+n)
	case Week:
		return civil(Week, p.year, p.month, p.day+7*n)
	case Month:
		return civil(Month, p.year, p.month+time.Month(n), 1)
	case Quarter:
		return civil(Quarter, p.year, p.month+time.Month(3*n), 1)
	case Year:
		return civil(Year, p.year+n, time.January, 1)
	}
	return p
}

// In returns the instants of p in loc: from the first instant at which
// loc's clocks show 00:00 of its first day, up to that of the next period's
// first day. Days are thus 23 or 25 hours long across a change to or from
// summer time, and consecutive periods tile time with no gap or overlap.
// Where the clocks skip midnight, the day starts when they jump past it;
// where they show midnight twice, at the first. As time.Time.In, In panics
// if loc is nil.
func (p Period) In(loc *time.Location) Range {
	if p.unit == 0 {
		return Range{}
	}
	next := p.Next()
	return Range{
		Start: firstAt(wallSeconds(p.year, p.month, p.day), loc),
		End:   firstAt(wallSeconds(next.year, next.month, next.day), loc),
	}
}

// Containing returns the period of unit u whose range in loc holds t: the
// day, ISO week, month, quarter or year t falls in on loc's clocks, such as
// the current month for t = now; its Prev is the month before. It returns
// the zero Period if u is not one of the units.
func Containing(u Unit, t time.Time, loc *time.Location) Period {
	y, m, d := t.In(loc).Date()
	var p Period
	switch u {
	case Day:
		p = civil(Day, y, m, d)
	case Week:
		p = civil(Week, y, m, d-daysSinceMonday(t.In(loc).Weekday()))
	case Month:
		p = civil(Month, y, m, 1)
	case Quarter:
		p = civil(Quarter, y, (m-1)/3*3+1, 1)
	case Year:
		p = civil(Year, y, time.January, 1)
	default:
		return Period{}
	}
	// The date on the clock names the period, except where clocks are set
	// back across midnight: the new day began when they first showed its
	// 00:00, so the instants that show the day before again belong to it.
	for t.Before(p.In(loc).Start) {
		p = p.Prev()
	}
	for !t.Before(p.In(loc).End) {
		p = p.Next()
	}
	return p
}
