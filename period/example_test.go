package period_test

import (
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/availmon/availmon/period"
)

// A calendar period resolved in a time zone: the day Berlin leaves summer
// time has 25 hours.
func Example() {
	loc, err := period.LoadLocation("Europe/Berlin")
	if err != nil {
		log.Fatal(err)
	}
	p, err := period.Parse("2026-10-25")
	if err != nil {
		log.Fatal(err)
	}
	r := p.In(loc)
	fmt.Println(p.Unit(), p, "from", r.Start, "to", r.End, "lasts", r.Duration())
	// Output: day 2026-10-25 from 2026-10-25 00:00:00 +0200 CEST to 2026-10-26 00:00:00 +0100 CET lasts 25h0m0s
}

// The current and the previous calendar month, as an objective over
// calendar months measures them.
func ExampleContaining() {
	loc, err := period.LoadLocation("Asia/Kathmandu")
	if err != nil {
		log.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 18, 30, 0, 0, time.UTC) // already December in Kathmandu
	this := period.Containing(period.Month, now, loc)
	last := this.Prev()
	fmt.Println(this, last, last.In(loc).Start)
	// Output: 2026-12 2026-11 2026-11-01 00:00:00 +0545 +0545
}

// A rolling window cut into local days: the first and last are partial.
func ExampleRange_Split() {
	loc, err := period.LoadLocation("Europe/Berlin")
	if err != nil {
		log.Fatal(err)
	}
	w, err := period.ParseWindow("3d")
	if err != nil {
		log.Fatal(err)
	}
	step, err := period.ParseStep("1d")
	if err != nil {
		log.Fatal(err)
	}
	now := time.Date(2026, 3, 30, 10, 0, 0, 0, time.UTC)
	for day := range w.Ending(now).Split(step, loc) {
		fmt.Println(day.Start.Format("Jan 2 15:04"), day.Duration())
	}
	// Output:
	// Mar 27 11:00 13h0m0s
	// Mar 28 00:00 24h0m0s
	// Mar 29 00:00 23h0m0s
	// Mar 30 00:00 12h0m0s
}

// A refused period: the error says what is wrong and what is accepted, for
// an API's validation error.
func ExampleParse_error() {
	_, err := period.Parse("2026-13")
	fmt.Println(errors.Is(err, period.ErrPeriod))
	fmt.Println(err)
	// Output:
	// true
	// period "2026-13": month must be 01-12; allowed forms: 2026-11-25 (day), 2026-W47 (ISO week), 2026-11 (month), 2026-Q4 (quarter), 2026 (year)
}

func ExampleParseWindow() {
	w, err := period.ParseWindow("30d")
	if err != nil {
		log.Fatal(err)
	}
	r := w.Ending(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	fmt.Println(w, w.Duration(), r.Start)
	_, err = period.ParseWindow("1y")
	fmt.Println(err)
	// Output:
	// 30d 720h0m0s 2026-10-26 12:00:00 +0000 UTC
	// window "1y": the units y and ms are not accepted; allowed: a duration from 1h to 400d in units w, d, h, m and s, such as 1h, 24h, 7d, 30d or 90d
}
