// Package period names the ranges of time availmon reports over: rolling
// windows ("30d"), calendar periods in a time zone ("2026-11", "2026-W47")
// and the steps that cut a range into parts ("1d", "1h").
//
//	loc, err := period.LoadLocation("Europe/Berlin")   // ?tz=
//	p, err := period.Parse("2026-Q4")                  // ?period=
//	r := p.In(loc)                                     // [start, end) in Berlin
//	w, err := period.ParseWindow("30d")                // ?window=
//	r = w.Ending(now)                                  // [now-30d, now)
//	step, err := period.ParseStep("1d")                // ?step=
//	for day := range r.Split(step, loc) { ... }        // local days
//	last := period.Containing(period.Month, now, loc).Prev() // last month
//
// A Period is named without a zone and resolved in one: its range starts the
// first time the zone's clocks show 00:00 of its first day, so a day is 23 or
// 25 hours long across a change to or from summer time, and consecutive
// periods tile time. A Window is elapsed time. Every function takes the time
// it works on as a value and reads no clock; all of them are safe for
// concurrent use.
//
// The parse errors wrap ErrPeriod, ErrWindow, ErrStep or ErrTimeZone, and
// their text lists the accepted forms, fit for an API's validation error:
//
//	period "2026-13": month must be 01-12; allowed forms: 2026-11-25 (day), 2026-W47 (ISO week), 2026-11 (month), 2026-Q4 (quarter), 2026 (year)
package period
