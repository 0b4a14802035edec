package promsource

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/availmon/availmon"
)

// DefaultMaxResponseBytes is Options.MaxResponseBytes when it is
// zero. A batch of BatchSize apps whose expressions each return a
// few dozen series answers well under 4 MiB; past this something is wrong
// (an expression matching every series, a misbehaving proxy), and reading on
// would cost the monitor its memory.
const DefaultMaxResponseBytes = 16 << 20

// ReportsRequests is true: every request goes through backendTransport,
// which reports it with availmon.ReportRequest.
func (s *Source) ReportsRequests() bool { return true }

// backendTransport bounds what is read of each answer and reports every
// request to the monitor whose context it carries.
type backendTransport struct {
	next     http.RoundTripper
	maxBytes int64
}

func (t *backendTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	start := time.Now()
	ctx := r.Context()
	res, err := t.next.RoundTrip(r)
	if err != nil {
		availmon.ReportRequest(ctx, time.Since(start), err)
		return nil, err
	}
	if res.ContentLength > t.maxBytes {
		// Said up front: no need to read the first maxBytes to know.
		res.Body.Close()
		err := tooLarge(t.maxBytes)
		availmon.ReportRequest(ctx, time.Since(start), err)
		return nil, err
	}
	var failed error
	if res.StatusCode/100 != 2 {
		failed = fmt.Errorf("HTTP status %s", res.Status)
	}
	res.Body = &boundedBody{rc: res.Body, ctx: ctx, left: t.maxBytes, limit: t.maxBytes,
		start: start, failed: failed}
	return res, nil
}

// boundedBody fails a read past limit bytes and reports the request once,
// at the end of the body, at the first read error, or at Close.
type boundedBody struct {
	rc     io.ReadCloser
	ctx    context.Context
	left   int64
	limit  int64
	start  time.Time
	failed error // set when the status already says the request failed

	once sync.Once
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte past the limit tells a body of exactly limit bytes
		// from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			err = tooLarge(b.limit)
		}
		b.ended(err)
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	b.ended(err)
	return n, err
}

func tooLarge(limit int64) error {
	return fmt.Errorf("%w: more than %d bytes (max_response_bytes)", ErrResponseTooLarge, limit)
}

// ended reports the request when err ends the body.
func (b *boundedBody) ended(err error) {
	switch {
	case err == io.EOF:
		b.done(b.failed)
	case err != nil:
		b.done(err)
	}
}

// Close before the end of the body means the reader gave up: the
// request's context ended, or the reader stopped for its own reasons.
func (b *boundedBody) Close() error {
	err := b.failed
	if err == nil {
		err = b.ctx.Err()
	}
	b.done(err)
	return b.rc.Close()
}

func (b *boundedBody) done(err error) {
	b.once.Do(func() { availmon.ReportRequest(b.ctx, time.Since(b.start), err) })
}
