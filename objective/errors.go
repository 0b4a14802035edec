package objective

import (
	"errors"
	"strconv"
)

// The errors of ParseTarget, ParseWindow, ParseKind and Objective.Validate
// wrap one of these; test with errors.Is. Their own text says what was wrong
// and what is accepted, fit to be shown to whoever wrote the definition.
var (
	// ErrName: the objective's name is empty or has characters other than
	// letters, digits, '_', '.' and '-'.
	ErrName = errors.New("invalid objective name")
	// ErrTarget: the target is not a percentage above 0% and at most 100%.
	ErrTarget = errors.New("invalid objective target")
	// ErrWindow: the window is not a rolling window of 1d to 400d, month or
	// quarter.
	ErrWindow = errors.New("invalid objective window")
	// ErrKind: the kind is not one this version computes.
	ErrKind = errors.New("invalid objective kind")
	// ErrLabel: a label's name is not a Prometheus label name, is reserved,
	// or its value is not UTF-8.
	ErrLabel = errors.New("invalid objective label")
)

const (
	targetForms = "write a percentage above 0% and at most 100%, such as 99.9% or 99.95%"
	windowForms = "allowed: a rolling window from 1d to 400d such as 28d, 30d or 90d, or a calendar month or quarter"
	nameForms   = "use 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit"
	kindForms   = "allowed: availability"
)

// inputError is the text of one refused input; Unwrap gives its sentinel,
// so the sentinel's text does not repeat inside the message.
type inputError struct {
	kind error
	msg  string
}

func (e *inputError) Error() string { return e.msg }
func (e *inputError) Unwrap() error { return e.kind }

// refuse builds the error "<what> "<text>": <reason>; <forms>".
func refuse(kind error, what, text, reason, forms string) error {
	return &inputError{kind: kind, msg: what + " " + quote(text) + ": " + reason + "; " + forms}
}

// quote quotes s for an error message, cut to a few dozen bytes: the
// message goes back to whoever wrote it, who needs no echo of a long input.
func quote(s string) string {
	const max = 40
	if len(s) <= max {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:max]) + "..."
}
