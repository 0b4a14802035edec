package objective

import (
	"errors"

	"github.com/availmon/availmon/internal/inputerr"
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
	// ErrSubject: the subject names more than one of app, location,
	// service and selector, or has PerApp without a selector, or a
	// selector with an empty label name or value.
	ErrSubject = errors.New("invalid objective subject")
	// ErrLabel: a label's name is not a Prometheus label name, is reserved,
	// or its value is not UTF-8.
	ErrLabel = errors.New("invalid objective label")
)

const (
	targetForms  = "write a percentage above 0% and at most 100%, such as 99.9% or 99.95%"
	windowForms  = "allowed: a rolling window from 1d to 400d such as 28d, 30d or 90d, or a calendar month or quarter"
	nameForms    = "use 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit"
	kindForms    = "allowed: availability"
	subjectForms = "name exactly one of app, location, service and selector (label: value pairs); per_app only with a selector"
)

// refuse builds the error "<what> "<text>": <reason>; <forms>".
func refuse(kind error, what, text, reason, forms string) error {
	return inputerr.Refuse(kind, what, text, reason, forms)
}
