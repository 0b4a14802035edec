package availmon

import (
	"errors"

	"github.com/availmon/availmon/internal/errtext"
)

// maxErrorText bounds every error text availmon keeps per app.
const maxErrorText = errtext.Max

// boundError returns err, or when its text is longer than maxErrorText an
// error whose text is cut to that length.
func boundError(err error) error {
	if err == nil || len(err.Error()) <= maxErrorText {
		return err
	}
	return errors.New(errtext.Truncate(err.Error(), maxErrorText))
}

// textInterner keeps one copy of each error text of a cycle. A failing
// backend gives thousands of apps the same error, each made afresh by its
// Error method, and a failing app mostly the same text as last cycle: kept
// as made, every app would hold its own copy of the text every cycle.
type textInterner map[string]string

// intern returns s, as prev when they are equal, or as the first copy of
// it this interner saw.
func (t *textInterner) intern(s, prev string) string {
	if s == prev {
		return prev
	}
	if v, ok := (*t)[s]; ok {
		return v
	}
	if *t == nil {
		*t = make(textInterner)
	}
	(*t)[s] = s
	return s
}
