package period

import (
	"errors"

	"github.com/availmon/availmon/internal/inputerr"
)

// The errors of Parse, ParseWindow, ParseStep and LoadLocation wrap one of
// these; test with errors.Is. Their own text says what was wrong and lists
// the accepted forms, fit to be shown to whoever wrote the value.
var (
	// ErrPeriod: the text is not a calendar period Parse accepts.
	ErrPeriod = errors.New("invalid calendar period")
	// ErrWindow: the text is not a rolling window ParseWindow accepts.
	ErrWindow = errors.New("invalid window")
	// ErrStep: the text is not a step ParseStep accepts.
	ErrStep = errors.New("invalid step")
	// ErrTimeZone: the name is not a time zone LoadLocation accepts.
	ErrTimeZone = errors.New("invalid time zone")
)

const (
	periodForms = "allowed forms: 2026-11-25 (day), 2026-W47 (ISO week), 2026-11 (month), 2026-Q4 (quarter), 2026 (year)"
	windowForms = "allowed: a duration from 1h to 400d in units w, d, h, m and s, such as 1h, 24h, 7d, 30d or 90d"
	stepForms   = "allowed: 1d (local days), 1w (ISO weeks) or a multiple of 15m that divides a day, such as 15m, 30m, 1h, 2h, 3h, 4h, 6h, 8h or 12h"
	zoneForms   = "use an IANA time zone name such as UTC, Europe/Berlin or America/New_York"
)

// refuse builds the error "<what> "<text>": <reason>; <forms>".
func refuse(kind error, what, text, reason, forms string) error {
	return inputerr.Refuse(kind, what, text, reason, forms)
}
