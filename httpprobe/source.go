package httpprobe

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
	"os"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"github.com/availmon/availmon"
)

// Options configures a Source. The zero value is usable.
type Options struct {
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

// Source is an availmon.Source that probes each app's Probe: up when the
// answer has an expected status (and body), down when the server answered
// otherwise, unavailable when no answer came (refused, DNS failure,
// timeout). Give its backend a BatchSize of 1 so probes run in parallel.
type Source struct {
	verify, skip *http.Client
	maxBody      int64
	log          *slog.Logger
}

var (
	_ availmon.Source       = (*Source)(nil)
	_ availmon.AppValidator = (*Source)(nil)
)

// defaultMaxParallel is the monitor's own default MaxParallel.
const defaultMaxParallel = 32

// New returns a Source. It opens no connection until the first Check.
func New(o Options) (*Source, error) {
	if o.MaxParallel < 0 || o.MaxRedirects < 0 || o.MaxBodyBytes < 0 {
		return nil, errors.New("httpprobe: negative limit")
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
	s := &Source{maxBody: o.MaxBodyBytes, log: o.Logger}
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

// ValidateApp refuses an app without a valid Probe in its Settings, so
// that New names it.
func (s *Source) ValidateApp(a availmon.App) error {
	p, ok := probeOf(a)
	if !ok {
		return fmt.Errorf("http: Settings is %T, not an *httpprobe.Probe", a.Settings)
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("http: %w", err)
	}
	return nil
}

// probeOf is the app's Probe, given as a *Probe or a Probe.
func probeOf(a availmon.App) (*Probe, bool) {
	switch p := a.Settings.(type) {
	case *Probe:
		return p, p != nil
	case Probe:
		return &p, true
	}
	return nil, false
}

// Check probes the apps one after the other; it never returns an error of
// its own, since each probe's failure belongs to its app alone.
func (s *Source) Check(ctx context.Context, apps []availmon.App) ([]availmon.Result, error) {
	out := make([]availmon.Result, len(apps))
	for i := range apps {
		out[i] = s.probe(ctx, apps[i])
		if out[i].Err != nil {
			s.log.Debug("http probe failed", "app", apps[i].Name, "status", out[i].Status, "err", out[i].Err)
		}
	}
	return out, nil
}

func (s *Source) probe(ctx context.Context, app availmon.App) availmon.Result {
	p, ok := probeOf(app)
	if !ok {
		return availmon.Result{Status: availmon.StatusUnavailable, Err: errors.New("app has no http probe")}
	}
	expect, err := parseExpect(p.ExpectStatus)
	if err != nil {
		return availmon.Result{Status: availmon.StatusUnavailable, Err: err}
	}
	// limit names what bounds the probe, for a timeout's error: its own
	// timeout, or the cycle's deadline when that comes first.
	limit := "the cycle's deadline"
	if p.Timeout > 0 {
		if dl, ok := ctx.Deadline(); !ok || time.Now().Add(p.Timeout).Before(dl) {
			limit = "its timeout " + model.Duration(p.Timeout).String()
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
		return availmon.Result{Status: availmon.StatusUnavailable, Err: err}
	}
	client := s.verify
	if p.TLSSkipVerify {
		client = s.skip
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return availmon.Result{Status: availmon.StatusUnavailable, ResponseTime: time.Since(start), Err: probeTimeout(ctx, p, limit, "waiting for the response headers", err)}
	}
	defer resp.Body.Close()
	headers := time.Since(start)
	if !expect.match(resp.StatusCode) {
		s.discard(ctx, stop, resp.Body, s.maxBody)
		return availmon.Result{Status: availmon.StatusDown, ResponseTime: headers, Err: fmt.Errorf("%s answered %s, expected %s",
			p.String(), resp.Status, strings.Join(expectList(p.ExpectStatus), " or "))}
	}
	if p.BodyContains == "" {
		// The status is the verdict: how slowly the body comes, or
		// whether it ends at all, is not part of the check.
		s.discard(ctx, stop, resp.Body, s.maxBody)
		return availmon.Result{Status: availmon.StatusUp, ResponseTime: headers}
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
		return availmon.Result{Status: availmon.StatusUp, ResponseTime: rt}
	case readErr != nil:
		return availmon.Result{Status: availmon.StatusUnavailable, ResponseTime: rt,
			Err: probeTimeout(ctx, p, limit, fmt.Sprintf("reading the body (%d bytes read)", n), readErr)}
	}
	return availmon.Result{Status: availmon.StatusDown, ResponseTime: rt,
		Err: fmt.Errorf("the body of %s (first %d bytes read) does not contain %q", p.String(), n, p.BodyContains)}
}

// request is the probe's request, with its headers.
func (p *Probe) request(ctx context.Context) (*http.Request, error) {
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
func (s *Source) discard(ctx context.Context, stop context.CancelFunc, body io.Reader, limit int64) {
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
func probeTimeout(ctx context.Context, p *Probe, limit, part string, err error) error {
	if ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, os.ErrDeadlineExceeded) {
		if strings.HasPrefix(part, "reading") {
			return fmt.Errorf("%s: %s: %w", p.String(), part, err)
		}
		return err
	}
	return fmt.Errorf("%s: timed out %s: the check must complete within %s: %w", p.String(), part, limit, context.DeadlineExceeded)
}

func expectList(l []string) []string {
	if len(l) == 0 {
		return []string{"2xx"}
	}
	return l
}
