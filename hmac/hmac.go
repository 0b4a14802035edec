// Package hmac signs and verifies HTTP requests with HMAC-SHA256, as
// availmon's API expects them. It is usable by clients (SignRequest,
// Transport) and by any server (Verifier); it does not depend on the rest of
// availmon.
//
// The canonical request is METHOD, PATH, BODY and TIMESTAMP joined by line
// feeds, where PATH is the decoded path the client asked for, without the
// query string (on the server: the path of the request URI, whatever a
// router such as http.StripPrefix or chi's Mount stripped before the
// verifier ran) and TIMESTAMP the decimal Unix time in seconds sent in X-Timestamp.
// The signature is the lowercase hex HMAC-SHA256 of it, keyed with the shared
// secret, sent as "Authorization: HMAC-SHA256 <signature>".
package hmac

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Header names and values of a signed request.
const (
	HeaderAuthorization = "Authorization"
	HeaderTimestamp     = "X-Timestamp"
	// Scheme is the authorization scheme: "Authorization: HMAC-SHA256 <hex>".
	Scheme = "HMAC-SHA256"
)

// Defaults and limits.
const (
	// DefaultSkew is how far a request's timestamp may lie from the
	// server's time, either way.
	DefaultSkew = 300 * time.Second
	// DefaultMaxBodyBytes bounds the body a Verifier reads.
	DefaultMaxBodyBytes = 64 << 10
	// MinSecretLen is the shortest secret CheckSecret accepts.
	MinSecretLen = 32
)

// Errors Verify returns, wrapped with details. Test them with errors.Is.
var (
	ErrMissingHeaders   = errors.New("authentication headers missing")
	ErrInvalidSignature = errors.New("signature verification failed")
	ErrTimestamp        = errors.New("request timestamp outside the accepted range")
	// ErrReplayed is also an ErrInvalidSignature.
	ErrReplayed     = fmt.Errorf("%w: signature already used", ErrInvalidSignature)
	ErrBodyTooLarge = errors.New("request body too large")
	ErrBadRequest   = errors.New("request cannot be verified")
	// ErrReplayFile: the signature could not be written to the replay
	// file (VerifierOptions.ReplayFile), so the request is refused rather
	// than left open to a replay after a restart.
	ErrReplayFile = errors.New("hmac: cannot record the signature in the replay file")
)

// TimestampError is the error for a timestamp outside the tolerance. It
// matches ErrTimestamp.
type TimestampError struct {
	ServerTime  time.Time
	RequestTime time.Time
	Tolerance   time.Duration
}

func (e *TimestampError) Error() string {
	return fmt.Sprintf("%v: request time %d differs from server time %d by more than %s",
		ErrTimestamp, e.RequestTime.Unix(), e.ServerTime.Unix(), e.Tolerance)
}

// Is makes errors.Is(err, ErrTimestamp) true.
func (e *TimestampError) Is(target error) bool { return target == ErrTimestamp }

var lf = []byte{'\n'}

// writeCanonical streams the canonical request into w (a MAC, or a buffer
// for debug logs): signer and verifier both go through here, so they cannot
// disagree on the format.
func writeCanonical(w io.Writer, scratch []byte, method, path string, body []byte, timestamp string) {
	scratch = append(scratch[:0], method...)
	scratch = append(scratch, '\n')
	scratch = append(scratch, path...)
	scratch = append(scratch, '\n')
	w.Write(scratch) //nolint:errcheck // hash writes never fail
	w.Write(body)    //nolint:errcheck
	scratch = append(scratch[:0], '\n')
	scratch = append(scratch, timestamp...)
	w.Write(scratch) //nolint:errcheck
}

func sum(mac hash.Hash, method, path string, body []byte, timestamp string, out []byte) []byte {
	var scratch [256]byte
	writeCanonical(mac, scratch[:0], method, path, body, timestamp)
	return mac.Sum(out)
}

// Signature returns the lowercase hex signature of a request.
func Signature(secret []byte, method, path string, body []byte, timestamp int64) string {
	var out [sha256.Size]byte
	return hex.EncodeToString(sum(hmac.New(sha256.New, secret), method, path, body,
		strconv.FormatInt(timestamp, 10), out[:0]))
}

// SignRequest sets the X-Timestamp and Authorization headers of r for time
// now. It reads r.Body and puts back an identical one (and GetBody), so the
// body sent is the body signed.
func SignRequest(r *http.Request, secret []byte, now time.Time) error {
	if len(secret) == 0 {
		return errors.New("hmac: empty secret")
	}
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		var err error
		body, err = io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return fmt.Errorf("hmac: reading the body to sign: %w", err)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r.ContentLength = int64(len(body))
	}
	ts := now.Unix()
	r.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	r.Header.Set(HeaderAuthorization, Scheme+" "+Signature(secret, r.Method, requestPath(r), body, ts))
	return nil
}

// requestPath is the decoded path the client asked for, "/" when there is
// none. On a server that is the path of r.RequestURI, not r.URL.Path, which a
// router mounting the handler under a prefix may have shortened: the client
// signed the URL it called, prefix included.
func requestPath(r *http.Request) string {
	p := r.URL.Path
	if uri := r.RequestURI; uri != "" {
		if uri[0] == '/' && strings.IndexAny(uri, "%?") < 0 {
			p = uri // the common case, without parsing
		} else if u, err := url.ParseRequestURI(uri); err == nil {
			p = u.Path
		}
	}
	if p == "" {
		return "/"
	}
	return p
}

// Transport signs every request it sends with Secret. The caller's request
// is not modified.
type Transport struct {
	// Secret is the shared secret the server verifies with (at least
	// MinSecretLen random bytes, see CheckSecret). It is read, never
	// modified, and must not change while requests are in flight.
	Secret []byte
	// Base sends the signed request; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Now tells the time to sign with; nil means time.Now.
	Now func() time.Time
}

// RoundTrip signs a copy of req and sends it.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	clone := req.Clone(req.Context())
	if req.Body != nil && req.Body != http.NoBody {
		body, err := io.ReadAll(req.Body)
		req.Body.Close() // a RoundTripper always closes the body
		if err != nil {
			return nil, fmt.Errorf("hmac: reading the body to sign: %w", err)
		}
		clone.Body = io.NopCloser(bytes.NewReader(body))
	}
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	if err := SignRequest(clone, t.Secret, now()); err != nil {
		return nil, err
	}
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(clone)
}

// CheckSecret refuses a secret shorter than MinSecretLen bytes, unless
// allowShort (for tests only).
func CheckSecret(secret []byte, allowShort bool) error {
	switch {
	case len(secret) == 0:
		return errors.New("hmac: the secret is empty")
	case len(secret) < MinSecretLen && !allowShort:
		return fmt.Errorf("hmac: the secret is %d bytes; at least %d random bytes are required", len(secret), MinSecretLen)
	}
	return nil
}
