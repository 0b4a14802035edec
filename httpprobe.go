package availmon

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// HTTPProbe checks an app by requesting a URL directly, for apps that have
// no metric in Prometheus. Set it as App.HTTP and give the app a backend
// whose Source is an HTTPSource.
type HTTPProbe struct {
	// URL is the absolute http or https URL to request.
	URL string
	// Method is the request method; default GET.
	Method string
	// ExpectStatus lists the status codes that mean up, as codes ("200")
	// or classes ("2xx"); default ["2xx"]. When it names a redirect
	// (3xx, or a code from 300 to 399) redirects are not followed, so that
	// the redirect itself can be checked.
	ExpectStatus []string
	// BodyContains, when set, must occur in the first HTTPSourceOptions.
	// MaxBodyBytes of the response body (else the app is down), and arrive
	// within the timeout (else it is unavailable). Without it the status
	// alone decides, however slowly the body comes.
	BodyContains string
	// Timeout bounds the probe; zero leaves it to the cycle's timeout.
	Timeout time.Duration
	// TLSSkipVerify accepts any server certificate. For tests and
	// self-signed staging hosts only.
	TLSSkipVerify bool
	// Headers are added to the request (Host sets the Host header).
	Headers map[string]string
}

// Validate reports what is wrong with p, if anything.
func (p *HTTPProbe) Validate() error {
	var errs []error
	u, err := url.Parse(p.URL)
	switch {
	case p.URL == "":
		errs = append(errs, errors.New("url is empty"))
	case err != nil:
		errs = append(errs, fmt.Errorf("url: %w", err))
	case u.Scheme != "http" && u.Scheme != "https":
		errs = append(errs, fmt.Errorf("url %q: scheme must be http or https", p.URL))
	case u.Host == "":
		errs = append(errs, fmt.Errorf("url %q has no host", p.URL))
	}
	if p.Method != "" && !validMethod(p.Method) {
		errs = append(errs, fmt.Errorf("method %q is not a valid HTTP method", p.Method))
	}
	if _, err := parseExpect(p.ExpectStatus); err != nil {
		errs = append(errs, err)
	}
	if p.Timeout < 0 {
		errs = append(errs, fmt.Errorf("timeout %s is negative", p.Timeout))
	}
	for k := range p.Headers {
		if !validMethod(k) { // header names are tokens, like methods
			errs = append(errs, fmt.Errorf("header name %q is not valid", k))
		}
	}
	return errors.Join(errs...)
}

// describe is the probe as shown in an app's `metric`.
func (p *HTTPProbe) describe() string {
	return p.method() + " " + p.URL
}

func (p *HTTPProbe) method() string {
	if p.Method == "" {
		return http.MethodGet
	}
	return strings.ToUpper(p.Method)
}

func validMethod(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?={}`, c) >= 0 {
			return false
		}
	}
	return true
}

// statusSet is a parsed ExpectStatus: a class digit (2 for "2xx") or an
// exact code per entry.
type statusSet struct {
	classes  [6]bool
	codes    []int
	redirect bool // some entry accepts a 3xx answer
}

func parseExpect(list []string) (statusSet, error) {
	var s statusSet
	if len(list) == 0 {
		list = []string{"2xx"}
	}
	for _, e := range list {
		e = strings.ToLower(strings.TrimSpace(e))
		if len(e) == 3 && strings.HasSuffix(e, "xx") && e[0] >= '1' && e[0] <= '5' {
			s.classes[e[0]-'0'] = true
			s.redirect = s.redirect || e[0] == '3'
			continue
		}
		code, err := strconv.Atoi(e)
		if err != nil || code < 100 || code > 599 {
			return s, fmt.Errorf("expect_status %q: want a code from 100 to 599 or a class such as 2xx", e)
		}
		s.codes = append(s.codes, code)
		s.redirect = s.redirect || code/100 == 3
	}
	return s, nil
}

func (s *statusSet) match(code int) bool {
	if code/100 < len(s.classes) && s.classes[code/100] {
		return true
	}
	for _, c := range s.codes {
		if c == code {
			return true
		}
	}
	return false
}

// HTTPSourceOptions configures an HTTPSource. The zero value is usable.
type HTTPSourceOptions struct {
	// MaxParallel caps the connections kept to one host; give it the
	// monitor's MaxParallel so that probes share the monitor's budget and a
	// cycle opens no more connections than it has checks in flight.
	// Probes with TLSSkipVerify use a transport of their own, so a host
	// probed both ways may get up to twice as many. Default 32.
	MaxParallel int
	// MaxRedirects is how many redirects a probe follows; default 10. The
	// last redirect response is then judged like any other answer.
	MaxRedirects int
	// MaxBodyBytes is how much of a response body is read, to look for
	// BodyContains and to let the connection be reused; default 1 MiB.
	MaxBodyBytes int64
	// Logger receives every failed probe at debug level (status changes
	// are logged by the monitor); nil discards.
	Logger *slog.Logger
	// Transport, when set, sends the requests instead of the source's own
	// keep-alive transports (TLSSkipVerify is then up to it).
	Transport http.RoundTripper
}

// HTTPSource is a Source that probes each app's HTTPProbe: up when the
// answer has an expected status (and body), down when the server answered
// otherwise, unavailable when no answer came (refused, DNS failure,
// timeout). Give its backend a BatchSize of 1 so probes run in parallel.
type HTTPSource struct {
	verify, skip *http.Client
	maxBody      int64
	log          *slog.Logger
}

var _ Source = (*HTTPSource)(nil)

// NewHTTPSource returns an HTTPSource. It opens no connection until the
// first Check.
func NewHTTPSource(o HTTPSourceOptions) (*HTTPSource, error) {
	if o.MaxParallel < 0 || o.MaxRedirects < 0 || o.MaxBodyBytes < 0 {
		return nil, errors.New("availmon: http source: negative limit")
	}
	if o.MaxParallel == 0 {
		o.MaxParallel = defaultMaxParallel
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = 10
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = 1 << 20
	}
	s := &HTTPSource{maxBody: o.MaxBodyBytes, log: o.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	verifyRT, skipRT := o.Transport, o.Transport
	if o.Transport == nil {
		verifyRT, skipRT = newProbeTransport(o.MaxParallel, false), newProbeTransport(o.MaxParallel, true)
	}
	s.verify = newProbeClient(verifyRT, o.MaxRedirects)
	s.skip = newProbeClient(skipRT, o.MaxRedirects)
	return s, nil
}

func newProbeTransport(maxConns int, skipVerify bool) *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          4 * maxConns,
		MaxIdleConnsPerHost:   maxConns, // keep what a cycle opened for the next one
		MaxConnsPerHost:       maxConns,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		TLSClientConfig:       &tls.Config{InsecureSkipVerify: skipVerify}, //nolint:gosec // only when a probe asks for it
	}
}

// noFollow marks a request whose probe checks redirects itself.
type noFollowKey struct{}

func newProbeClient(rt http.RoundTripper, maxRedirects int) *http.Client {
	return &http.Client{
		Transport: rt,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.Context().Value(noFollowKey{}) != nil || len(via) > maxRedirects {
				return http.ErrUseLastResponse
			}
			return nil
		},
	}
}

// Check probes the apps one after the other; it never returns an error of
// its own, since each probe's failure belongs to its app alone.
func (s *HTTPSource) Check(ctx context.Context, apps []App) ([]Result, error) {
	out := make([]Result, len(apps))
	for i := range apps {
		out[i] = s.probe(ctx, &apps[i])
		if out[i].Err != nil {
			s.log.Debug("http probe failed", "app", apps[i].Name, "status", out[i].Status, "err", out[i].Err)
		}
	}
	return out, nil
}

func (s *HTTPSource) probe(ctx context.Context, app *App) Result {
	p := app.HTTP
	if p == nil {
		return Result{Status: StatusUnavailable, Err: errors.New("app has no http probe")}
	}
	expect, err := parseExpect(p.ExpectStatus)
	if err != nil {
		return Result{Status: StatusUnavailable, Err: err}
	}
	// limit names what bounds the probe, for a timeout's error: its own
	// timeout, or the cycle's deadline when that comes first.
	limit := "the cycle's deadline"
	if p.Timeout > 0 {
		if dl, ok := ctx.Deadline(); !ok || time.Now().Add(p.Timeout).Before(dl) {
			limit = "its timeout " + formatDuration(p.Timeout)
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.Timeout)
		defer cancel()
	}
	if expect.redirect {
		ctx = context.WithValue(ctx, noFollowKey{}, true)
	}
	// Cancelling the request's context cuts off the body still being
	// drained after the verdict (discard), which closes its connection.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	req, err := p.request(ctx)
	if err != nil {
		return Result{Status: StatusUnavailable, Err: err}
	}
	client := s.verify
	if p.TLSSkipVerify {
		client = s.skip
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return Result{Status: StatusUnavailable, ResponseTime: time.Since(start), Err: probeTimeout(ctx, p, limit, "waiting for the response headers", err)}
	}
	defer resp.Body.Close()
	headers := time.Since(start)
	if !expect.match(resp.StatusCode) {
		s.discard(ctx, stop, resp.Body, s.maxBody)
		return Result{Status: StatusDown, ResponseTime: headers, Err: fmt.Errorf("%s answered %s, expected %s",
			p.describe(), resp.Status, strings.Join(expectList(p.ExpectStatus), " or "))}
	}
	if p.BodyContains == "" {
		// The status is the verdict: how slowly the body comes, or
		// whether it ends at all, is not part of the check.
		s.discard(ctx, stop, resp.Body, s.maxBody)
		return Result{Status: StatusUp, ResponseTime: headers}
	}
	// BodyContains is judged on the first maxBody bytes: up once the text
	// is found; down once they have all come (or the whole of a shorter
	// body) without it; unavailable when the timeout passes first, since
	// the answer that would tell never came, as with headers that do not
	// come. A body that trickles and one that never ends meet one rule.
	found, n, readErr := findInBody(resp.Body, s.maxBody, p.BodyContains)
	rt := time.Since(start)
	switch {
	case found:
		s.discard(ctx, stop, resp.Body, s.maxBody-n)
		return Result{Status: StatusUp, ResponseTime: rt}
	case readErr != nil:
		return Result{Status: StatusUnavailable, ResponseTime: rt,
			Err: probeTimeout(ctx, p, limit, fmt.Sprintf("reading the body (%d bytes read)", n), readErr)}
	}
	return Result{Status: StatusDown, ResponseTime: rt,
		Err: fmt.Errorf("the body of %s (first %d bytes read) does not contain %q", p.describe(), n, p.BodyContains)}
}

// request is the probe's request, with its headers.
func (p *HTTPProbe) request(ctx context.Context) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, p.method(), p.URL, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range p.Headers {
		if strings.EqualFold(k, "Host") {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "availmon-probe")
	}
	return req, nil
}

// drainTime is how long a probe goes on reading a body whose verdict is
// made, so that its connection can be reused: long enough for the rest of
// a body that is being sent, too short for a slow or endless one to hold
// a probe slot for long.
const drainTime = time.Second

// discard reads what is left of body, up to limit bytes, for at most
// drainTime and at most half the time left before ctx's deadline, so that
// the result is never late for the cycle. Then stop cuts it off: the
// connection is closed rather than reused. What it reads changes nothing.
func (s *HTTPSource) discard(ctx context.Context, stop context.CancelFunc, body io.Reader, limit int64) {
	d := drainTime
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl)/2)
	}
	if d <= 0 || limit <= 0 {
		return
	}
	t := time.AfterFunc(d, stop)
	defer t.Stop()
	io.Copy(io.Discard, io.LimitReader(body, limit)) //nolint:errcheck // io.Discard reads through a pooled buffer
}

// findInBody reads body until it has seen text (found), or to its end or
// limit bytes. n is how many bytes were read; err is nil at the end or the
// limit.
func findInBody(body io.Reader, limit int64, text string) (found bool, n int64, err error) {
	r := io.LimitReader(body, limit)
	seen := make([]byte, 0, 512)
	for {
		if len(seen) == cap(seen) {
			seen = append(seen, 0)[:len(seen)]
		}
		from := max(0, len(seen)-len(text)+1) // text may span two reads
		k, err := r.Read(seen[len(seen):cap(seen)])
		seen = seen[:len(seen)+k]
		switch {
		case bytes.Contains(seen[from:], []byte(text)):
			return true, int64(len(seen)), nil
		case err == io.EOF:
			return false, int64(len(seen)), nil
		case err != nil:
			return false, int64(len(seen)), err
		}
	}
}

// probeTimeout says which part of the probe ran out of time when err is
// the probe's deadline passing, and wraps err as it is otherwise.
func probeTimeout(ctx context.Context, p *HTTPProbe, limit, part string, err error) error {
	if ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, os.ErrDeadlineExceeded) {
		if strings.HasPrefix(part, "reading") {
			return fmt.Errorf("%s: %s: %w", p.describe(), part, err)
		}
		return err
	}
	return fmt.Errorf("%s: timed out %s: the check must complete within %s: %w", p.describe(), part, limit, context.DeadlineExceeded)
}

func expectList(l []string) []string {
	if len(l) == 0 {
		return []string{"2xx"}
	}
	return l
}
