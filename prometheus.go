package availmon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/config"
	"github.com/prometheus/common/model"

	"github.com/availmon/availmon/internal/promanswer"
)

// PrometheusBatchSize is the batch size to give a Backend whose Source is a
// PrometheusSource: 10,000 apps then cost 50 queries a cycle.
const PrometheusBatchSize = 200

// PrometheusOptions configures a PrometheusSource.
type PrometheusOptions struct {
	// Name identifies the backend in logs and in its HTTP client.
	Name string
	// URL is the base URL of a server that speaks the Prometheus HTTP query
	// API (Prometheus, Thanos, Mimir, VictoriaMetrics, Cortex).
	URL string
	// HTTPClientConfig holds authentication, TLS and proxy settings; the
	// zero value is plain HTTP.
	HTTPClientConfig config.HTTPClientConfig
	// RoundTripper, when set, is used instead of one built from
	// HTTPClientConfig (tests count requests with it).
	RoundTripper http.RoundTripper
	// QueryTimeout bounds one query; zero leaves it to the cycle's timeout.
	QueryTimeout time.Duration
	// MaxResponseBytes bounds what is read of one answer; a longer answer
	// fails the query with ErrResponseTooLarge. Zero means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Logger receives warnings the server returns; nil discards them.
	Logger *slog.Logger
	// Clock tells when verdicts on expressions expire; nil means the
	// system clock.
	Clock Clock
	// MaxQueryLength is the longest query sent, in bytes; zero means
	// DefaultMaxQueryLength. Fused selectors are split to stay within it.
	MaxQueryLength int
}

// promQuerier is the one call of the v1 API we use.
type promQuerier interface {
	Query(ctx context.Context, query string, ts time.Time, opts ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error)
}

// PrometheusSource reads availability with PromQL. An app is up when its
// Metric returns samples that are all non-zero (and not NaN), down when one
// is 0, and unavailable when there is no sample, a NaN or an error. Apps of
// one Check call are combined into a single query.
type PrometheusSource struct {
	name   string
	api    promQuerier
	client api.Client // the planned queries' HTTP part (promquery.go)
	http   *http.Client
	// answerSize is about the size of the largest recent answer to a
	// planned query, which the next one's buffer starts at (promquery.go).
	answerSize atomic.Int64
	timeout    time.Duration
	log        *slog.Logger
	clock      Clock
	solo       *soloVerdicts // expressions asked on their own for a while

	exprs       exprCache
	plans       planCache
	maxQueryLen int
}

// NewPrometheusSource returns a source that queries o.URL. It makes no
// request until the first Check.
func NewPrometheusSource(o PrometheusOptions) (*PrometheusSource, error) {
	if o.URL == "" {
		return nil, errors.New("availmon: prometheus source needs a URL")
	}
	if o.MaxResponseBytes < 0 {
		return nil, fmt.Errorf("availmon: prometheus %q: MaxResponseBytes %d is negative", o.Name, o.MaxResponseBytes)
	}
	rt := o.RoundTripper
	if rt == nil {
		var err error
		rt, err = config.NewRoundTripperFromConfig(o.HTTPClientConfig, "availmon_"+o.Name)
		if err != nil {
			return nil, fmt.Errorf("availmon: prometheus %q: %w", o.Name, err)
		}
	}
	rt = &backendTransport{next: rt, maxBytes: cmp.Or(o.MaxResponseBytes, DefaultMaxResponseBytes)}
	c, err := api.NewClient(api.Config{Address: o.URL, RoundTripper: rt})
	if err != nil {
		return nil, fmt.Errorf("availmon: prometheus %q: %w", o.Name, err)
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	clock := o.Clock
	if clock == nil {
		clock = systemClock{}
	}
	if o.MaxQueryLength < 0 {
		return nil, fmt.Errorf("availmon: prometheus %q: max query length %d is negative", o.Name, o.MaxQueryLength)
	}
	return &PrometheusSource{name: o.Name, api: v1.NewAPI(c), client: c, http: &http.Client{Transport: rt},
		timeout: o.QueryTimeout, log: log,
		clock: clock, solo: newSoloVerdicts(), maxQueryLen: cmp.Or(o.MaxQueryLength, DefaultMaxQueryLength)}, nil
}

// observesRequests: every request goes through backendTransport, which
// reports it to the Monitor.
func (s *PrometheusSource) observesRequests() {}

// Check evaluates the apps' expressions with as few queries as it can:
// expressions that differ only in one label's value are fused into one
// selector, the others combined into one query (see internal/promql). It
// returns an error when the server could not be reached or failed
// as a whole, or answered a combined query with something other than an
// instant vector: the batch's apps are then unavailable for this cycle,
// and nothing is remembered against their expressions.
func (s *PrometheusSource) Check(ctx context.Context, apps []App) ([]Result, error) {
	c := &checkRun{s: s, apps: apps, out: make([]Result, len(apps)), now: s.clock.Now()}
	s.exprs.sweep()
	var batch, solo []int
	for i, a := range apps {
		if !s.solo.solo(c.now, a.Metric, a.ResponseTimeMetric) {
			batch = append(batch, i)
		} else {
			solo = append(solo, i)
		}
	}
	if len(batch) > 0 {
		fallback, err := c.planned(ctx, batch)
		if err != nil {
			return nil, err
		}
		solo = append(solo, fallback...)
	}
	for _, i := range solo {
		if err := c.one(ctx, i); err != nil {
			return nil, err
		}
	}
	return c.out, nil
}

// checkRun is one Check call.
type checkRun struct {
	s    *PrometheusSource
	apps []App
	out  []Result
	now  time.Time
	// answered is set once a query of this call got an answer: the server
	// works, so an error for an expression is that expression's.
	answered bool
}

// probeQuery is a query every server that speaks PromQL answers with one
// sample, whatever it stores.
const probeQuery = "vector(1)"

// serverAnswers makes sure the server answers queries before an error is
// blamed on an expression: a server (or a proxy before it) that fails
// every query must cost its apps this cycle, not mark their expressions.
func (c *checkRun) serverAnswers(ctx context.Context) error {
	if c.answered {
		return nil
	}
	v, _, err := c.s.query(ctx, probeQuery)
	if err != nil {
		return err
	}
	if _, ok := v.(model.Vector); !ok {
		return fmt.Errorf("prometheus %s: %s was answered with a %s, not an instant vector", c.s.name, probeQuery, v.Type())
	}
	c.answered = true
	return nil
}

// one asks for app i with its own queries. An expression the server
// refuses, or whose answer is not an instant vector, is then asked on its
// own for soloVerdictTTL: that error names it, since the server answers
// other queries. (A scalar is no reason: combined queries wrap it in
// vector().)
func (c *checkRun) one(ctx context.Context, i int) error {
	a := c.apps[i]
	v, rt, err := c.s.query(ctx, a.Metric)
	if err != nil {
		if classify(err) == classBackend || c.serverAnswers(ctx) != nil {
			return newQueryError(c.s.name, "a query", a.Metric, err)
		}
		c.s.solo.mark(c.now, a.Metric)
		c.out[i] = Result{Status: StatusUnavailable, ResponseTime: rt, Err: redactURL(err)}
		return nil
	}
	c.answered = true
	samples, err := samplesOf(v)
	if err != nil {
		c.s.solo.mark(c.now, a.Metric)
		c.out[i] = Result{Status: StatusUnavailable, ResponseTime: rt, Err: err}
		return nil
	}
	var rtSamples model.Vector
	if a.ResponseTimeMetric != "" {
		v, _, err := c.s.query(ctx, a.ResponseTimeMetric)
		switch {
		case err != nil && classify(err) == classBackend:
			return newQueryError(c.s.name, "a query", a.ResponseTimeMetric, err)
		case err != nil:
			// A bad response-time expression costs the app its measured
			// response time, not its state; it must not spoil the batch
			// again next cycle.
			if c.s.solo.mark(c.now, a.ResponseTimeMetric) {
				c.s.log.Warn("response_time_metric failed", "backend", c.s.name, "app", a.Name,
					"err", truncateText(err.Error(), maxErrorText))
			}
		default:
			if rtSamples, err = samplesOf(v); err != nil {
				c.s.solo.mark(c.now, a.ResponseTimeMetric)
			}
		}
	}
	c.out[i] = result(samples, rtSamples, rt)
	return nil
}

func samplesOf(v model.Value) (model.Vector, error) {
	switch v := v.(type) {
	case model.Vector:
		return v, nil
	case *model.Scalar:
		return model.Vector{{Value: v.Value, Timestamp: v.Timestamp}}, nil
	case nil:
		return nil, nil
	default:
		return nil, fmt.Errorf("expression returns a %s, not an instant vector or scalar", v.Type())
	}
}

// result applies the rulings to an expression's samples and its response
// time expression's.
func result(samples, rtSamples model.Vector, roundTrip time.Duration) Result {
	var st, rt sampleSummary
	st.addVector(samples)
	rt.addVector(rtSamples)
	return st.result(&rt, roundTrip)
}

// sampleSummary is what the rulings need of an expression's samples, in
// any order: whether there is one, whether one is 0 or NaN, and the largest
// other value. A cycle keeps one per expression, not the samples: 16 bytes,
// two per app while a cycle of 50,000 apps runs.
type sampleSummary struct {
	worst               float64 // the largest value that is not NaN, when worstSet
	any                 bool    // a sample was seen
	zero, nan, worstSet bool
}

func (s *sampleSummary) add(f float64) {
	s.any = true
	switch {
	case f == 0:
		s.zero = true
	case math.IsNaN(f):
		s.nan = true
		return
	}
	if !s.worstSet || f > s.worst {
		s.worst, s.worstSet = f, true
	}
}

func (s *sampleSummary) addVector(v model.Vector) {
	for _, smp := range v {
		s.add(float64(smp.Value))
	}
}

// errNaNSample is the same every cycle, so made once (errNoSample too, in
// discover.go).
var errNaNSample = errors.New("sample is NaN")

// result applies the rulings: no sample is unavailable; up only if every
// sample is non-zero and not NaN; a zero makes it down. The slowest series
// of the response time expression speaks for the app.
func (s *sampleSummary) result(rt *sampleSummary, roundTrip time.Duration) Result {
	r := Result{ResponseTime: roundTrip}
	if rt.worstSet && !math.IsInf(rt.worst, -1) && rt.worst >= 0 {
		r.ResponseTime = time.Duration(rt.worst * float64(time.Second))
	}
	switch {
	case !s.any:
		r.Status, r.Err = StatusUnavailable, errNoSample
	case s.zero:
		r.Status = StatusDown
	case s.nan:
		r.Status, r.Err = StatusUnavailable, errNaNSample
	default:
		r.Status = StatusUp
	}
	return r
}

func (s *PrometheusSource) query(ctx context.Context, q string) (model.Value, time.Duration, error) {
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	start := time.Now()
	var opts []v1.Option
	if dl, ok := ctx.Deadline(); ok {
		// Let the server give up too, rather than keep evaluating a query
		// nobody waits for.
		opts = append(opts, v1.WithTimeout(serverTimeout(time.Until(dl))))
	}
	v, warnings, _, err := s.api.Query(ctx, q, time.Now(), opts...)
	rt := time.Since(start)
	s.warn(warnings)
	if err != nil {
		return nil, rt, fmt.Errorf("prometheus %s: %w", s.name, err)
	}
	if vec, ok := v.(model.Vector); ok && slices.Contains(vec, nil) {
		// client_golang makes null a nil sample; reading on would panic.
		return nil, rt, fmt.Errorf("prometheus %s: %w", s.name, promanswer.ErrNullSample)
	}
	return v, rt, nil
}

// serverTimeout rounds d down for the query's timeout parameter. The client
// sends time.Duration.String(), and Prometheus (2.42 at least) refuses a
// fractional "9.984s" as bad_data: a whole number of seconds, or of
// milliseconds below one second, reads as "9s" or "500ms".
func serverTimeout(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Truncate(time.Second)
	}
	return max(time.Millisecond, d.Truncate(time.Millisecond))
}
