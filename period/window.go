package period

import (
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// The lengths ParseWindow accepts.
const (
	minWindow = time.Hour
	maxWindow = 400 * 24 * time.Hour
)

// Window is a rolling window: a length of elapsed time before an instant.
// The zero Window is empty.
type Window struct {
	d    time.Duration
	text string
}

// ParseWindow reads a rolling window in Prometheus duration syntax, from 1h
// to 400d, in the units w (7d), d (24h), h, m and s: "1h", "24h", "7d",
// "30d", "1h30m". The units y and ms are refused: a Prometheus year is 365
// days, not the calendar year (which is the period "2026"), and windows are
// counted in seconds. A window is elapsed time, not calendar days: "7d" is
// 168 hours even across a change to summer time. The error wraps ErrWindow
// and says what is accepted.
func ParseWindow(s string) (Window, error) {
	d, err := model.ParseDuration(s)
	switch {
	case err != nil:
		return Window{}, refuse(ErrWindow, "window", s, "not a duration", windowForms)
	case strings.Contains(s, "y") || strings.Contains(s, "ms"):
		return Window{}, refuse(ErrWindow, "window", s, "the units y and ms are not accepted", windowForms)
	case time.Duration(d) < minWindow:
		return Window{}, refuse(ErrWindow, "window", s, "shorter than 1h", windowForms)
	case time.Duration(d) > maxWindow:
		return Window{}, refuse(ErrWindow, "window", s, "longer than 400d", windowForms)
	}
	return Window{d: time.Duration(d), text: s}, nil
}

// Duration returns the window's length.
func (w Window) Duration() time.Duration { return w.d }

// String returns the window as ParseWindow read it: "24h" stays "24h".
func (w Window) String() string { return w.text }

// Ending returns the window that ends at now: [now-w, now).
func (w Window) Ending(now time.Time) Range {
	now = now.Round(0) // a monotonic reading would make the range compare by it
	return Range{Start: now.Add(-w.d), End: now}
}
