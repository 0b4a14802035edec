// Package errlist splits an error that joins several (errors.Join) into
// its problems, so that each is reported on its own: one log line or one
// detail of an error answer per problem.
package errlist

import "errors"

// Split lists the problems err joins, depth first, or err alone. A joined
// error wrapped once (fmt.Errorf("file: %w", errors.Join(...))) is split
// too: the wrapping adds a prefix, not a problem.
func Split(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, Split(e)...)
		}
		return out
	}
	if u := errors.Unwrap(err); u != nil {
		if _, ok := u.(interface{ Unwrap() []error }); ok {
			return Split(u)
		}
	}
	return []error{err}
}
