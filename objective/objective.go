package objective

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"
)

// Objective is a promise about a subject (an app, a location, a service, or
// a selection of apps counted as one): that over its Window the subject is
// good at least Target of the time it is counted.
type Objective struct {
	// Name names the objective in the API, in exported series and alerts.
	Name string
	// Kind is what is counted as good; the zero Kind is Availability.
	Kind Kind
	// Target is the fraction of counted time promised good: 0.999 for
	// "99.9%" (ParseTarget). Above 0, at most 1.
	Target float64
	// Window is the time measured: rolling or a calendar month or quarter.
	Window Window
	// Labels go with the objective's exported series and so into its
	// alerts (team, runbook_url).
	Labels map[string]string
	// Subject is what the objective covers. Evaluate does not read it;
	// the zero Subject is valid for an objective evaluated on its own.
	Subject Subject
}

// Kind is what an objective counts as good and bad time. Every kind hands
// Evaluate its time in the same shape, timeline.Totals: Up is good time,
// Down bad time, Unknown and Maintenance neither; so a new kind needs a new
// Source, not a new computation.
type Kind uint8

const (
	// Availability counts the subject's up time as good and its down time
	// as bad, from its timeline.
	Availability Kind = iota
)

// String returns the kind's name as ParseKind reads it.
func (k Kind) String() string {
	if k == Availability {
		return "availability"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ParseKind reads an objective's kind: "availability". Latency objectives
// are not computed yet, and are refused like any other name. The error
// wraps ErrKind.
func ParseKind(s string) (Kind, error) {
	if s == "availability" {
		return Availability, nil
	}
	reason := "unknown kind"
	if s == "latency" {
		reason = "latency objectives are not supported yet"
	}
	return 0, refuse(ErrKind, "kind", s, reason, kindForms)
}

// reservedLabels are the label names the exported series of an objective
// set themselves.
var reservedLabels = [...]string{"objective", "app", "location", "service", "window", "kind", "state"}

// Validate returns nil if o can be evaluated, or an error wrapping one of
// ErrName, ErrKind, ErrTarget, ErrWindow, ErrSubject or ErrLabel saying what is wrong
// first. Label names must be Prometheus label names, not beginning with
// "__" and none of objective, app, location, service, window, kind and
// state, which the exported series set themselves; label values must be
// UTF-8.
func (o Objective) Validate() error {
	if !validName(o.Name) {
		return refuse(ErrName, "name", o.Name, "not a valid objective name", nameForms)
	}
	if o.Kind != Availability {
		return refuse(ErrKind, "kind", o.Kind.String(), "unknown kind", kindForms)
	}
	if !validTarget(o.Target) {
		return refuse(ErrTarget, "target", formatTarget(o.Target), "must be above 0% and at most 100%", targetForms)
	}
	if err := o.Window.validate(); err != nil {
		return err
	}
	if err := o.Subject.validate(); err != nil {
		return err
	}
	names := make([]string, 0, len(o.Labels))
	for n := range o.Labels {
		names = append(names, n)
	}
	sort.Strings(names) // the first error is the same every time
	for _, n := range names {
		if err := validLabel(n, o.Labels[n]); err != nil {
			return err
		}
	}
	return nil
}

func validLabel(name, value string) error {
	const forms = "label names are letters, digits and '_', not starting with a digit or \"__\", and not one of objective, app, location, service, window, kind, state"
	if !promLabelName(name) || strings.HasPrefix(name, "__") {
		return refuse(ErrLabel, "label", name, "not a label name", forms)
	}
	for _, r := range reservedLabels {
		if name == r {
			return refuse(ErrLabel, "label", name, "reserved: the exported series set it", forms)
		}
	}
	if !utf8.ValidString(value) {
		return refuse(ErrLabel, "label", name, "the value is not UTF-8", forms)
	}
	return nil
}

// promLabelName reports whether s matches [a-zA-Z_][a-zA-Z0-9_]*.
func promLabelName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// validName reports whether s is 1 to 128 letters, digits, '_', '.' or '-'
// starting with a letter or digit: a name that fits a URL path segment and
// a label value as it is.
func validName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '_' && c != '.' && c != '-') {
			return false
		}
	}
	return true
}

// formatTarget writes a fraction as the percentage an error shows.
func formatTarget(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Sprint(f)
	}
	return fmt.Sprintf("%g%%", f*100)
}
