package availmon

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/internal/repeatlog"
)

// errNoAuthentication is why a write is refused when nothing authenticates
// it.
var errNoAuthentication = errors.New("no authentication is configured")

// requireAuth lets a request through only when the Authenticator accepts
// it. Without an Authenticator it refuses every request, unless the writes
// were opened explicitly (AllowUnauthenticatedWrites): reads reach it only
// with ProtectReads, which needs an Authenticator, so what it refuses then
// are writes.
func (m *Monitor) requireAuth(next http.Handler) http.Handler {
	if m.api.auth == nil && m.api.openWrites {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m.api.auth == nil {
			m.logRefusal(w, r, errNoAuthentication)
			m.writeError(w, r, noAuthError())
			return
		}
		if err := m.api.auth.Verify(r); err != nil {
			m.logRefusal(w, r, err)
			m.writeError(w, r, authError(err, m.clock.Now()))
			return
		}
		// The server closes the body it made, not the one Verify may have
		// put in its place; closing it lets the Authenticator reuse its
		// buffer.
		if r.Body != nil {
			defer r.Body.Close()
		}
		next.ServeHTTP(w, r)
	})
}

// logRefusal logs a refused request, rate-limited so that a flood of them
// cannot fill the log.
func (m *Monitor) logRefusal(w http.ResponseWriter, r *http.Request, err error) {
	logIt, ended := m.api.refusals.Note("", m.clock.Now())
	m.logUnloggedRefusals(ended)
	if logIt {
		m.log.Info("request refused", "method", r.Method, "path", clientPath(r),
			"remote", r.RemoteAddr, "request_id", w.Header().Get(HeaderRequestID), "err", err)
	}
}

// noAuthError is the answer to a write when nothing authenticates writes:
// it says how to configure that, in the file's terms and the library's.
func noAuthError() *apiError {
	return &apiError{status: http.StatusForbidden, code: codeForbidden,
		message: "writes are refused: no authentication is configured",
		details: []string{
			"configure authentication.hmac (Options.Authenticator when embedding) and sign the request",
			"or, when a proxy in front of availmon authenticates writes, set authentication.allow_unauthenticated_writes: true (Options.AllowUnauthenticatedWrites)",
		}}
}

// authError turns an Authenticator's refusal into the API's error. The hmac
// sentinels get their own codes; anything else is FORBIDDEN.
func authError(err error, now time.Time) *apiError {
	forbidden := func(code, message string, details ...string) *apiError {
		return &apiError{status: http.StatusForbidden, code: code, message: message, details: append(details, err.Error())}
	}
	var te *hmac.TimestampError
	switch {
	case errors.As(err, &te):
		return &apiError{status: http.StatusForbidden, code: codeTimestamp,
			message: "request timestamp outside the accepted range",
			details: []string{
				fmt.Sprintf("server time: %s (%d)", te.ServerTime.UTC().Format(time.RFC3339), te.ServerTime.Unix()),
				fmt.Sprintf("request time: %s (%d)", te.RequestTime.UTC().Format(time.RFC3339), te.RequestTime.Unix()),
				fmt.Sprintf("accepted difference: %d seconds either way", int64(te.Tolerance/time.Second)),
			}}
	case errors.Is(err, hmac.ErrTimestamp):
		return forbidden(codeTimestamp, "request timestamp outside the accepted range",
			fmt.Sprintf("server time: %s (%d)", now.UTC().Format(time.RFC3339), now.Unix()))
	case errors.Is(err, hmac.ErrMissingHeaders):
		return forbidden(codeMissingAuthHeaders, "authentication headers missing",
			"send Authorization: HMAC-SHA256 <signature> and X-Timestamp: <unix seconds>")
	case errors.Is(err, hmac.ErrReplayed):
		return forbidden(codeInvalidSignature, "signature already used")
	case errors.Is(err, hmac.ErrInvalidSignature):
		return forbidden(codeInvalidSignature, "HMAC signature verification failed")
	case errors.Is(err, hmac.ErrBodyTooLarge):
		return &apiError{status: http.StatusRequestEntityTooLarge, code: codeValidation,
			message: "request body is too large", details: []string{err.Error()}}
	case errors.Is(err, hmac.ErrBadRequest):
		return validationError("the request cannot be verified", err.Error())
	case errors.Is(err, hmac.ErrReplayFile):
		// The server's disk, not the client: a retry may succeed.
		return &apiError{status: http.StatusServiceUnavailable, code: codeServiceUnavailable,
			message: "the signature cannot be recorded against replays; try again later"}
	default:
		return forbidden(codeForbidden, "access denied")
	}
}

// Refused requests are one condition with a window: logged one by one only
// up to refusalBurst per refusalWindow, the rest counted and the count
// logged once the window has passed, so that a client (or an attacker)
// sending bad signatures cannot flood the log.
const (
	refusalBurst  = 5
	refusalWindow = time.Minute
)

// logUnloggedRefusals writes the count of the refusals of runs that have
// ended that were not logged one by one.
func (m *Monitor) logUnloggedRefusals(runs ...repeatlog.Run) {
	n := 0
	for _, r := range runs {
		n += r.Unlogged(refusalBurst)
	}
	if n > 0 {
		m.log.Info("more requests refused (not logged one by one)", "count", n, "window", formatDuration(refusalWindow))
	}
}
