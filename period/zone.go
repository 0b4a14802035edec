package period

import "time"

// LoadLocation returns the time zone of an IANA name such as "UTC" or
// "Europe/Berlin", as time.LoadLocation does, with an error wrapping
// ErrTimeZone that says what to write instead. It refuses "" and "Local":
// an empty name means no choice was made, which the caller settles with its
// default, and the server's local zone would make the same request give
// different answers on different machines.
func LoadLocation(name string) (*time.Location, error) {
	switch {
	case name == "":
		return nil, refuse(ErrTimeZone, "time zone", name, "empty", zoneForms)
	case name == "Local":
		return nil, refuse(ErrTimeZone, "time zone", name, "the server's local zone is not accepted", zoneForms)
	case len(name) > 64: // the longest IANA name has 32 bytes
		return nil, refuse(ErrTimeZone, "time zone", name, "too long", zoneForms)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, refuse(ErrTimeZone, "time zone", name, "unknown", zoneForms)
	}
	return loc, nil
}

// firstAt returns the first instant at which loc's clock shows the wall
// time w (seconds since 1970-01-01 00:00 on that clock) or later. Where
// the clock skips w, that is the instant it jumps past it; where it shows
// w twice, the first time. time.Date leaves both cases unspecified, and
// periods must tile time whatever the zone does at midnight (America/Havana
// skips and repeats midnight hours).
func firstAt(w int64, loc *time.Location) time.Time {
	// Zone offsets stay well within two days of UTC, so the clock shows
	// less than w two days before w.
	t := w - 2*secondsPerDay
	for {
		off, end, ok := zoneAt(t, loc)
		c := max(w-off, t)
		if !ok || c < end {
			return time.Unix(c, 0).In(loc)
		}
		t = end
	}
}

// zoneAt returns loc's offset at the instant at (Unix seconds) and the
// instant after at from which it may differ; ok is false if it never does.
// Within [at, end) the clock runs with UTC.
func zoneAt(at int64, loc *time.Location) (off, end int64, ok bool) {
	z := time.Unix(at, 0).In(loc)
	_, o := z.Zone()
	_, e := z.ZoneBounds()
	if e.IsZero() {
		return int64(o), 0, false
	}
	end = e.Unix()
	if end <= at {
		// golang/go#81583: in a year past a zone's table of changes, Go
		// ends the zone 365 days after the year's start, a day early in a
		// leap year, and reports that end again from the year's last day.
		// The offset holds to the end of the UTC year.
		end = time.Date(z.UTC().Year()+1, time.January, 1, 0, 0, 0, 0, time.UTC).Unix()
	}
	return int64(o), end, true
}

const secondsPerDay = 24 * 60 * 60

// wallSeconds gives a civil date's midnight as seconds on a clock that
// counts from 1970-01-01 00:00.
func wallSeconds(year int, month time.Month, day int) int64 {
	return time.Date(year, month, day, 0, 0, 0, 0, time.UTC).Unix()
}
