// Package inputerr makes the errors that refuse a value a person wrote (a
// period, a window, an objective's target): one message that says what was
// wrong and what is accepted, wrapping a sentinel that errors.Is finds.
package inputerr

import "strconv"

// inputError is the text of one refused input; Unwrap gives its sentinel,
// so the sentinel's text does not repeat inside the message.
type inputError struct {
	kind error
	msg  string
}

func (e *inputError) Error() string { return e.msg }
func (e *inputError) Unwrap() error { return e.kind }

// Refuse builds the error `<what> "<text>": <reason>; <forms>`, wrapping
// kind.
func Refuse(kind error, what, text, reason, forms string) error {
	return &inputError{kind: kind, msg: what + " " + Quote(text) + ": " + reason + "; " + forms}
}

// Quote quotes s for an error message, cut to a few dozen bytes: the
// message goes back to whoever wrote it, who needs no echo of a long input.
func Quote(s string) string {
	const max = 40
	if len(s) <= max {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:max]) + "..."
}
