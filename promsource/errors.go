package promsource

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/errtext"
)

// What a failed query means. Servers that speak the Prometheus query API
// answer errors in one envelope, {"status":"error","errorType":...}, but
// mean different things by the same status:
//
//   - Prometheus, Thanos and Mimir/Cortex: 400 bad_data for a parameter
//     they refuse (an expression that does not parse is `invalid parameter
//     "query"`), 422 execution when evaluation fails, 503 timeout/canceled/
//     unavailable, 500 internal, 404 not_found; Mimir adds 429
//     too_many_requests and 413 too_large_entry, and reports some storage
//     failures as 422 execution too.
//   - VictoriaMetrics: 422 with errorType "422" for any query it cannot
//     parse or evaluate.
//   - Proxies and load balancers in between: any status, any body.
//
// So only bad_data about the query names the expression for certain;
// execution and "422" may be the expression's fault or the server's; the
// rest is the server's.
type errClass int

const (
	classBackend    errClass = iota // the server failed: the batch's apps are unavailable this cycle
	classExpression                 // the server refused the expression
	classEvaluation                 // evaluation failed: the expression's fault or the server's
)

// errorTypeVM422 is VictoriaMetrics' errorType for queries it refuses.
const errorTypeVM422 v1.ErrorType = "422"

func classify(err error) errClass {
	var e *v1.Error
	if !errors.As(err, &e) {
		return classBackend
	}
	switch e.Type {
	case v1.ErrBadData:
		if strings.Contains(e.Msg, `invalid parameter "`) && !strings.Contains(e.Msg, `invalid parameter "query"`) {
			// The server refused another parameter of ours (time,
			// timeout): blaming the expression would mark every app
			// as not combinable.
			return classBackend
		}
		return classExpression
	case v1.ErrExec, errorTypeVM422:
		return classEvaluation
	}
	return classBackend
}

// isExpressionError reports whether the server answered but refused or
// failed to evaluate the expression, so that the expression may be at
// fault rather than the server.
func isExpressionError(err error) bool { return classify(err) != classBackend }

// refusedInput reports whether the server refused the question itself
// as bad input: bad_data about any of its parameters (the expression, its
// times, its step) or an evaluation that failed. Asked again, the same
// question fails again.
func refusedInput(err error) bool {
	var e *v1.Error
	return errors.As(err, &e) && (e.Type == v1.ErrBadData || classify(err) == classEvaluation)
}

// ErrResponseTooLarge is the error of a query whose answer is longer than
// Options.MaxResponseBytes.
var ErrResponseTooLarge = errors.New("answer too large")

// queryError is the error of a query that fails the whole batch. Apps see
// what kind of error it was, never the server's own message: that may
// quote the whole query (VictoriaMetrics does), and an app's error must
// never hold a combined query or other apps' expressions. Detail gives the
// message, with the query left out and cut short, for the log.
// Its text is made once: a batch's error is every app's of the batch, and
// the monitor reads each app's error's text, 100,000 times a failed cycle
// at 100,000 apps, and making it (parsing a URL to redact it) each time
// would be most of what a failed cycle allocates.
type queryError struct {
	backend string
	what    string // "a combined query of 200 apps", "a query"
	err     error
	detail  string
	text    string
}

var _ availmon.DetailedError = (*queryError)(nil)

func newQueryError(backend, what, query string, err error) *queryError {
	e := &queryError{backend: backend, what: what, err: err, detail: redactQuery(err.Error(), query)}
	e.text = e.message()
	return e
}

func (e *queryError) Error() string { return e.text }

// message is the error's text, for the apps: see queryError.
func (e *queryError) message() string {
	var ae *v1.Error
	if !errors.As(e.err, &ae) {
		return redactURL(e.err).Error()
	}
	switch ae.Type {
	case v1.ErrServer, v1.ErrClient, v1.ErrBadResponse:
		// The client library's own words: a status code, a decoding error.
		return fmt.Sprintf("prometheus %s: %s failed: %s", e.backend, e.what, ae.Msg)
	}
	return fmt.Sprintf("prometheus %s: %s failed: error type %q (the server's message is in availmon's log)",
		e.backend, e.what, ae.Type)
}

func (e *queryError) Unwrap() error { return e.err }

// Detail is the server's message without the query, for the log.
func (e *queryError) Detail() string { return e.detail }

// redactQuery removes query, as written and as quoted in Go syntax, from
// msg, and bounds the result.
func redactQuery(msg, query string) string {
	if query != "" {
		msg = strings.ReplaceAll(msg, fmt.Sprintf("%q", query), "<query>")
		msg = strings.ReplaceAll(msg, query, "<query>")
	}
	return errtext.Truncate(msg, errtext.Max)
}

// redactURL strips the query string from a *url.Error's URL: a request
// sent with GET carries the whole expression there.
func redactURL(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	u, perr := url.Parse(ue.URL)
	if perr != nil || u.RawQuery == "" {
		return err
	}
	u.RawQuery = ""
	return &redactedError{msg: strings.ReplaceAll(err.Error(), ue.URL, u.String()), err: err}
}

// redactedError is err with a shorter text; errors.Is and As still see err.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
