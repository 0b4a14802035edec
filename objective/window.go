package objective

import (
	"time"

	"github.com/availmon/availmon/period"
)

// The lengths a rolling window may have: a day at least, so that it has
// days to chart, and at most what the record keeps.
const (
	minRolling = 24 * time.Hour
	maxRolling = 400 * 24 * time.Hour
)

// Window is the time an objective is measured over: either a rolling
// window, the last Rolling of elapsed time before now, or a calendar
// window, the month or quarter that holds now on Location's clocks.
type Window struct {
	// Rolling is the length of a rolling window (28d, 30d, 90d); zero for a
	// calendar window.
	Rolling period.Window
	// Calendar is period.Month or period.Quarter for a calendar window, 0
	// for a rolling one.
	Calendar period.Unit
	// Location is the time zone of a calendar window's periods and of the
	// days of Series, for a rolling window too; nil means UTC.
	Location *time.Location
}

// ParseWindow reads an objective's window: a rolling window in Prometheus
// duration syntax from 1d to 400d ("28d", "30d", "90d", "4w"), or "month"
// or "quarter" for a calendar window. The zone of a calendar window is set
// apart, in Location. The error wraps ErrWindow and lists what is accepted.
func ParseWindow(s string) (Window, error) {
	switch s {
	case "month":
		return Window{Calendar: period.Month}, nil
	case "quarter":
		return Window{Calendar: period.Quarter}, nil
	}
	w, err := period.ParseWindow(s)
	switch {
	case err != nil:
		return Window{}, refuse(ErrWindow, "window", s, "not a duration, month or quarter", windowForms)
	case w.Duration() < minRolling:
		return Window{}, refuse(ErrWindow, "window", s, "shorter than 1d", windowForms)
	}
	return Window{Rolling: w}, nil
}

// String returns the window as ParseWindow reads it: "30d", "month".
func (w Window) String() string {
	if w.Calendar != 0 {
		return w.Calendar.String()
	}
	return w.Rolling.String()
}

// validate returns the error of a window that is neither a rolling nor a
// calendar window ParseWindow could have returned.
func (w Window) validate() error {
	d := w.Rolling.Duration()
	switch {
	case w.Calendar != 0 && d != 0:
		return refuse(ErrWindow, "window", w.String(), "both rolling and calendar", windowForms)
	case w.Calendar == period.Month || w.Calendar == period.Quarter:
		return nil
	case w.Calendar != 0:
		return refuse(ErrWindow, "window", w.String(), "a calendar window must be a month or a quarter", windowForms)
	case d == 0:
		return refuse(ErrWindow, "window", "", "no window", windowForms)
	case d < minRolling || d > maxRolling:
		return refuse(ErrWindow, "window", w.String(), "a rolling window must be 1d to 400d", windowForms)
	}
	return nil
}

// Range returns the window at now: [now-Rolling, now) for a rolling
// window, the month or quarter that holds now for a calendar one.
func (w Window) Range(now time.Time) period.Range {
	if w.Calendar != 0 {
		return period.Containing(w.Calendar, now, w.location()).In(w.location())
	}
	return w.Rolling.Ending(now)
}

func (w Window) location() *time.Location {
	if w.Location == nil {
		return time.UTC
	}
	return w.Location
}
