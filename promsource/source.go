package promsource

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/config"
	"github.com/prometheus/common/model"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/errtext"
	"github.com/availmon/availmon/internal/promanswer"
	"github.com/availmon/availmon/internal/promql"
	"github.com/availmon/availmon/internal/repeatlog"
)

// BatchSize is the batch size to give the availmon.Backend of a Source:
// 10,000 apps then cost 50 queries a cycle.
const BatchSize = 200

var (
	_ availmon.Source          = (*Source)(nil)
	_ availmon.RequestReporter = (*Source)(nil)
)

// Options configures a Source.
type Options struct {
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
	Clock availmon.Clock
	// MaxQueryLength is the longest query sent, in bytes; zero means
	// DefaultMaxQueryLength. Fused selectors are split to stay within it.
	MaxQueryLength int
	// ShardSeries is how many of a wide group's series one query asks for
	// at most: a larger group is asked in shards, at once (see
	// docs/decisions.md); zero means promql.ShardValues (50,000), a
	// negative value never cuts a group. Shards answer sooner on a server
	// of several cores, for more of its CPU. Shards of a few hundred
	// series are many queries a cycle (the configuration file takes 1,000
	// at least); a cut whose expressions would be longer than
	// MaxQueryLength is not made.
	ShardSeries int
}

// promQuerier is the one call of the v1 API we use.
type promQuerier interface {
	Query(ctx context.Context, query string, ts time.Time, opts ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error)
}

// Source reads availability with PromQL. An app is up when its
// Metric returns samples that are all non-zero (and not NaN), down when one
// is 0, and unavailable when there is no sample, a NaN or an error. Apps of
// one Check call are combined into a single query.
type Source struct {
	name   string
	api    promQuerier
	client api.Client // the planned queries' HTTP part (query.go)
	http   *http.Client
	// answerSize is about the size of the largest recent answer to a
	// planned query, which the next one's buffer starts at (query.go).
	answerSize atomic.Int64
	// scratch holds the buffers of planned calls that ended: a cycle's
	// answers, a megabyte at 10,000 apps, are otherwise garbage every
	// cycle, and the collections they cause mark the whole heap.
	scratch scratchList
	timeout time.Duration
	log     *slog.Logger
	clock   availmon.Clock
	solo    *soloVerdicts // expressions asked on their own for a while

	exprs       exprCache
	plans       planCache
	maxQueryLen int
	shardValues int // 0: never cut
	// pastRefused are the expressions the server refused over a range,
	// warned of once each: their apps' past stays unknown, which an
	// operator would otherwise see only as a backfill that never fills.
	pastRefused repeatlog.Log
}

// New returns a source that queries o.URL. It makes no
// request until the first Check.
func New(o Options) (*Source, error) {
	if o.URL == "" {
		return nil, errors.New("promsource: a URL is needed")
	}
	if o.MaxResponseBytes < 0 {
		return nil, fmt.Errorf("promsource %q: MaxResponseBytes %d is negative", o.Name, o.MaxResponseBytes)
	}
	rt := o.RoundTripper
	if rt == nil {
		var err error
		rt, err = config.NewRoundTripperFromConfig(o.HTTPClientConfig, "availmon_"+o.Name)
		if err != nil {
			return nil, fmt.Errorf("promsource %q: %w", o.Name, err)
		}
	}
	rt = &backendTransport{next: rt, maxBytes: cmp.Or(o.MaxResponseBytes, DefaultMaxResponseBytes)}
	c, err := api.NewClient(api.Config{Address: o.URL, RoundTripper: rt})
	if err != nil {
		return nil, fmt.Errorf("promsource %q: %w", o.Name, err)
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
		return nil, fmt.Errorf("promsource %q: max query length %d is negative", o.Name, o.MaxQueryLength)
	}
	return &Source{name: o.Name, api: v1.NewAPI(c), client: c, http: &http.Client{Transport: rt},
		timeout: o.QueryTimeout, log: log,
		clock: clock, solo: newSoloVerdicts(), maxQueryLen: cmp.Or(o.MaxQueryLength, DefaultMaxQueryLength),
		shardValues: shardValues(o.ShardSeries)}, nil
}

// Check evaluates the apps' expressions with as few queries as it can:
// expressions that differ only in one label's value are fused into one
// selector, the others combined into one query (see internal/promql). It
// returns an error when the server could not be reached or failed
// as a whole, or answered a combined query with something other than an
// instant vector: the batch's apps are then unavailable for this cycle,
// and nothing is remembered against their expressions.
func (s *Source) Check(ctx context.Context, apps []availmon.App) ([]availmon.Result, error) {
	c := &checkRun{s: s, apps: apps, out: make([]availmon.Result, len(apps)), now: s.clock.Now()}
	s.exprs.sweep()
	batch := make([]int, 0, len(apps)) // most apps are batched: no growing by doubling
	var solo []int
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
	s    *Source
	apps []availmon.App
	out  []availmon.Result
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
		c.out[i] = availmon.Result{Status: availmon.StatusUnavailable, ResponseTime: rt, Err: redactURL(err)}
		return nil
	}
	c.answered = true
	samples, err := samplesOf(v)
	if err != nil {
		c.s.solo.mark(c.now, a.Metric)
		c.out[i] = availmon.Result{Status: availmon.StatusUnavailable, ResponseTime: rt, Err: err}
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
					"err", errtext.Truncate(err.Error(), errtext.Max))
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
func result(samples, rtSamples model.Vector, roundTrip time.Duration) availmon.Result {
	var st, rt promanswer.Summary
	st.AddVector(samples)
	rt.AddVector(rtSamples)
	return ruled(&st, &rt, roundTrip)
}

// ruled applies the rulings: no sample is unavailable; up only if every
// sample is non-zero and not NaN; a zero makes it down. The slowest series
// of the response time expression speaks for the app.
func ruled(st, rt *promanswer.Summary, roundTrip time.Duration) availmon.Result {
	r := availmon.Result{ResponseTime: roundTrip}
	if sec, ok := rt.Seconds(); ok {
		r.ResponseTime = time.Duration(sec * float64(time.Second))
	}
	switch st.Verdict() {
	case promanswer.NoSample:
		r.Status, r.Err = availmon.StatusUnavailable, promanswer.ErrNoSample
	case promanswer.Down:
		r.Status = availmon.StatusDown
	case promanswer.NaN:
		r.Status, r.Err = availmon.StatusUnavailable, promanswer.ErrNaNSample
	default:
		r.Status = availmon.StatusUp
	}
	return r
}

// systemClock is the clock of a source given none.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (s *Source) query(ctx context.Context, q string) (model.Value, time.Duration, error) {
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

// shardValues is the planner's shard size for Options.ShardSeries n.
func shardValues(n int) int {
	switch {
	case n < 0:
		return 0
	case n == 0:
		return promql.ShardValues
	}
	return n
}
