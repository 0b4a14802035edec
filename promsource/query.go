package promsource

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/availmon/availmon/internal/promanswer"
	"github.com/availmon/availmon/internal/promql"
)

// The planned queries of a cycle are sent and decoded here rather than
// through v1.API.Query: decoding 10,000 series into model.Vector (a label
// map per series, encoding/json scanning the body several times) was most
// of a cycle's CPU, and the plan needs only the label that routes each
// series back to its apps, and the value. The request is the one
// client_golang sends (a form POSTed, GET after 403/405/501, the time and
// timeout parameters), through the same api.Client and transport, so the
// response bound and the per-request observations are unchanged. Answers
// the lean decoder does not read, error statuses among them, are decoded
// by client_golang itself (promanswer.Full), so errors keep its types and
// messages.

// routedAnswer is what one planned query's answer holds, routed.
type routedAnswer struct {
	typ    model.ValueType
	series []promanswer.Series
	rt     time.Duration // the round trip
	body   []byte        // the answer's bytes, for the next answer to be read into
	total  int           // of a wide query: the series of the answer, routed or not
}

// askRouted runs q and routes its answer's series; buf is reused for
// them, and body for the answer's bytes (nothing decoded refers to them).
// Errors are those of query.
func (s *Source) askRouted(ctx context.Context, q *promql.Query, buf []promanswer.Series, body []byte) (routedAnswer, error) {
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	start := time.Now()
	res, body, err := s.post(ctx, queryForm(ctx, q.String(), start), body)
	out := routedAnswer{rt: time.Since(start), body: body}
	route := q.Route
	if q.Wide() {
		route = func(values [][]byte) int {
			out.total++
			return q.Route(values)
		}
	}
	if err != nil {
		return out, fmt.Errorf("prometheus %s: %w", s.name, err)
	}
	if res.StatusCode/100 == 2 {
		ans, err := promanswer.Decode(body, q.Labels(), route, buf)
		if err == nil {
			s.warn(ans.Warnings)
			if ans.Status == "error" {
				// As client_golang: an error envelope with a 2xx status.
				return out, fmt.Errorf("prometheus %s: %w", s.name, &v1.Error{Type: v1.ErrorType(ans.ErrorType), Msg: ans.Error})
			}
			out.typ, out.series = ans.Type, ans.Series
			return out, nil
		}
	}
	out.total = 0 // of a partial Decode
	v, warnings, err := promanswer.Full(ctx, res.StatusCode, body)
	s.warn(warnings)
	if err != nil {
		return out, fmt.Errorf("prometheus %s: %w", s.name, err)
	}
	out.series, out.typ, err = promanswer.FromValue(v, q.Labels(), route, buf)
	if err != nil {
		return out, fmt.Errorf("prometheus %s: %w", s.name, err)
	}
	return out, nil
}

// queryForm is the form of an instant query at ts, with the timeout
// parameter when ctx has a deadline, encoded as v1.API.Query's
// url.Values.Encode encodes it (keys in order, values escaped by
// url.QueryEscape), in one allocation of its length: Encode's escaped
// copy of the query and its growing builder would be a tenth of a
// 10,000-app cycle's garbage. It is a fresh string per request: the transport may
// still read a request's body after its answer came.
func queryForm(ctx context.Context, query string, ts time.Time) string {
	var num [32]byte
	tsText := strconv.AppendFloat(num[:0], float64(ts.Unix())+float64(ts.Nanosecond())/1e9, 'f', -1, 64)
	var timeout string
	if dl, ok := ctx.Deadline(); ok {
		// Let the server give up too, rather than keep evaluating a query
		// nobody waits for.
		timeout = serverTimeout(time.Until(dl)).String()
	}
	n := len("query=") + escapedLen(query) + len("&time=") + len(tsText)
	if timeout != "" {
		n += len("&timeout=") + escapedLen(timeout)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString("query=")
	writeQueryEscaped(&b, query)
	b.WriteString("&time=")
	b.Write(tsText) // digits and a point: nothing to escape
	if timeout != "" {
		b.WriteString("&timeout=")
		writeQueryEscaped(&b, timeout)
	}
	return b.String()
}

// escapedLen is the length of url.QueryEscape(s).
func escapedLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ' ' && !unreserved(c) {
			n += 2
		}
	}
	return n
}

// writeQueryEscaped writes url.QueryEscape(s) to b.
func writeQueryEscaped(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case unreserved(c):
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
}

// unreserved reports whether url.QueryEscape leaves c as it is.
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c == '.' || c == '~'
}

// post sends the encoded form to the query endpoint as client_golang's
// DoGetFallback does: POSTed, and again as a GET when the server (or a
// proxy) refuses the POST with 403, 405 or 501.
func (s *Source) post(ctx context.Context, encoded string, into []byte) (*http.Response, []byte, error) {
	u := s.client.URL(queryEndpoint, nil)
	req, err := http.NewRequest(http.MethodPost, u.String(), strings.NewReader(encoded))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	// Idempotent: the transport may retry it on a connection it found
	// closed, as for a GET (the header is not sent).
	req.Header["Idempotency-Key"] = nil
	res, body, err := s.do(ctx, req, into)
	if res != nil && (res.StatusCode == http.StatusForbidden || res.StatusCode == http.StatusMethodNotAllowed ||
		res.StatusCode == http.StatusNotImplemented) {
		u.RawQuery = encoded
		if req, err = http.NewRequest(http.MethodGet, u.String(), nil); err != nil {
			return nil, nil, err
		}
		return s.do(ctx, req, body)
	}
	return res, body, err
}

// do is api.Client's Do, but reads the answer into a buffer of the
// answer's size (answerRoom): client_golang's grows from 512 bytes by
// doubling, so every answer of a cycle (a megabyte at 10,000 apps) would be
// allocated about twice over, garbage that a lower GOGC pays for. It reads
// into into instead when that has the room, so that the queries of one
// call share a buffer.
func (s *Source) do(ctx context.Context, req *http.Request, into []byte) (*http.Response, []byte, error) {
	res, err := s.http.Do(req.WithContext(ctx))
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	if want := answerRoom(res.ContentLength, s.answerSize.Load()); cap(into) < want {
		into = make([]byte, 0, want)
	}
	buf := bytes.NewBuffer(into[:0])
	_, err = buf.ReadFrom(res.Body)
	if err != nil && ctx.Err() != nil {
		err = ctx.Err() // as api.Client.Do: the context's error, not the read's
	}
	if err == nil && res.StatusCode/100 == 2 {
		// Not an answer cut at max_response_bytes, nor an error page.
		s.noteAnswer(buf.Len())
	}
	return res, buf.Bytes(), err
}

// answerRoom is the buffer an answer is read into: its length when the
// server said it (a large answer, written at once, is sent chunked, without
// one), else the size of the largest recent answer and a sixteenth. The
// margin is for answers that grew a little: the same series' answer varies
// by a few bytes a series (the sample time's milliseconds are written only
// when not zero), 4% at 100,000 series, and a buffer a byte short is
// doubled, the copy and the doubled buffer twice the garbage of the answer.
// bytes.Buffer.ReadFrom reads only into bytes.MinRead free bytes or more:
// with fewer it grows the buffer, even at the end of the answer.
func answerRoom(contentLength, recent int64) int {
	if contentLength >= 0 {
		return int(contentLength) + bytes.MinRead
	}
	return int(recent+recent/16) + bytes.MinRead
}

// noteAnswer keeps answerSize near the largest recent answer: it follows
// a larger one at once and shrinks by an eighth per smaller one, so that a
// backend whose answers shrank stops getting buffers sized for the old.
func (s *Source) noteAnswer(n int) {
	old := s.answerSize.Load()
	next := max(int64(n), old-old/8)
	s.answerSize.CompareAndSwap(old, next) // a lost race only costs a grow
}

// queryEndpoint is the instant query API, relative to the source's URL.
const queryEndpoint = "/api/v1/query"

func (s *Source) warn(warnings []string) {
	if len(warnings) > 0 {
		s.log.Warn("prometheus returned warnings", "backend", s.name, "warnings", warnings)
	}
}
