package objective

import (
	"strconv"
	"strings"
)

// ParseTarget reads an objective's target written as a percentage, such as
// "99.9%" or "99.95%", and returns it as a fraction (0.999). It accepts one
// to three digits, optionally a point and one to ten more, and the percent
// sign; nothing else (no spaces, signs or exponents). The value must be
// above 0% and at most 100%: 100% is a promise of no downtime at all, whose
// budget is zero. The fraction is the float64 nearest the decimal written.
// The error wraps ErrTarget.
func ParseTarget(s string) (float64, error) {
	num, ok := strings.CutSuffix(s, "%")
	if !ok {
		return 0, refuse(ErrTarget, "target", s, "not a percentage", targetForms)
	}
	whole, frac, hasPoint := strings.Cut(num, ".")
	if !digits(whole, 1, 3) || hasPoint && !digits(frac, 1, 10) {
		return 0, refuse(ErrTarget, "target", s, "not a number of the form 99.9%", targetForms)
	}
	// Parsing the percentage divided by 100 in decimal rounds once, so
	// "99.9%" gives exactly the float64 nearest 0.999.
	f, err := strconv.ParseFloat(num+"e-2", 64)
	switch {
	case err != nil:
		return 0, refuse(ErrTarget, "target", s, "not a number", targetForms)
	case f <= 0:
		return 0, refuse(ErrTarget, "target", s, "must be above 0%", targetForms)
	case f > 1:
		return 0, refuse(ErrTarget, "target", s, "must be at most 100%", targetForms)
	}
	return f, nil
}

// digits reports whether s is between min and max ASCII digits.
func digits(s string, min, max int) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// validTarget reports whether f is a target Evaluate can work with: a
// fraction above 0 and at most 1.
func validTarget(f float64) bool { return f > 0 && f <= 1 }
