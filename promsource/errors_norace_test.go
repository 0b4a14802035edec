//go:build !race

package promsource

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"
)

// A batch's error is every app's of the batch and its text is read once
// an app: reading it makes nothing, whatever the error (a URL redacted,
// the client library's words). Allocation figures are only meaningful
// without the race detector.
func TestQueryErrorTextMadeOnce(t *testing.T) {
	ue := &url.Error{Op: "Get", URL: "http://prom:9090/api/v1/query?query=up", Err: context.DeadlineExceeded}
	for _, err := range []error{fmt.Errorf("prometheus main: %w", ue), errors.New("prometheus main: refused")} {
		e := newQueryError("main", "a query", "up", err)
		if allocs := testing.AllocsPerRun(100, func() { _ = e.Error() }); allocs != 0 {
			t.Errorf("Error() of %q allocates %v times, want 0", e.Error(), allocs)
		}
	}
}
