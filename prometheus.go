package availmon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
)

// PrometheusBatchSize is the batch size to give a Backend whose Source is a
// PrometheusSource: at most that many expressions that cannot be fused are
// combined into one query (10,000 such apps cost 50 queries a cycle), and
// a Check call given more apps splits them likewise.
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
	// Logger receives warnings the server returns; nil discards them.
	Logger *slog.Logger
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
	name    string
	api     promQuerier
	timeout time.Duration
	log     *slog.Logger

	mu   sync.Mutex
	solo map[string]bool // expressions that cannot be combined with others

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
	rt := o.RoundTripper
	if rt == nil {
		var err error
		rt, err = config.NewRoundTripperFromConfig(o.HTTPClientConfig, "availmon_"+o.Name)
		if err != nil {
			return nil, fmt.Errorf("availmon: prometheus %q: %w", o.Name, err)
		}
	}
	c, err := api.NewClient(api.Config{Address: o.URL, RoundTripper: rt})
	if err != nil {
		return nil, fmt.Errorf("availmon: prometheus %q: %w", o.Name, err)
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.MaxQueryLength < 0 {
		return nil, fmt.Errorf("availmon: prometheus %q: max query length %d is negative", o.Name, o.MaxQueryLength)
	}
	return &PrometheusSource{name: o.Name, api: v1.NewAPI(c), timeout: o.QueryTimeout, log: log,
		solo: make(map[string]bool), maxQueryLen: cmp.Or(o.MaxQueryLength, DefaultMaxQueryLength)}, nil
}

// Check evaluates the apps' expressions with as few queries as it can:
// expressions that differ only in one label's value are fused into one
// selector, the others combined into one query (see internal/promql). It
// returns an error only when the server could not be reached or failed as
// a whole.
func (s *PrometheusSource) Check(ctx context.Context, apps []App) ([]Result, error) {
	out := make([]Result, len(apps))
	var batch, solo []int
	s.mu.Lock()
	for i, a := range apps {
		if !s.solo[a.Metric] && !s.solo[a.ResponseTimeMetric] {
			batch = append(batch, i)
		} else {
			solo = append(solo, i)
		}
	}
	s.mu.Unlock()

	if len(batch) > 0 {
		fallback, err := s.checkPlanned(ctx, apps, batch, out)
		if err != nil {
			return nil, err
		}
		solo = append(solo, fallback...)
	}
	for _, i := range solo {
		r, err := s.checkOne(ctx, apps[i])
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// checkOne asks for one app with its own queries, and remembers expressions
// that cannot be part of a combined query (scalars, errors) so later cycles
// do not try again.
func (s *PrometheusSource) checkOne(ctx context.Context, a App) (Result, error) {
	v, rt, err := s.query(ctx, a.Metric)
	if err != nil {
		if !isExpressionError(err) {
			return Result{}, err
		}
		s.markSolo(a.Metric)
		return Result{Status: StatusUnavailable, ResponseTime: rt, Err: err}, nil
	}
	samples, err := samplesOf(v)
	if err != nil {
		s.markSolo(a.Metric)
		return Result{Status: StatusUnavailable, ResponseTime: rt, Err: err}, nil
	}
	if _, scalar := v.(*model.Scalar); scalar {
		s.markSolo(a.Metric)
	}
	var rtSamples model.Vector
	if a.ResponseTimeMetric != "" {
		v, _, err := s.query(ctx, a.ResponseTimeMetric)
		switch {
		case err != nil && !isExpressionError(err):
			return Result{}, err
		case err != nil:
			// A bad response-time expression costs the app its measured
			// response time, not its state; it must not spoil the batch
			// again next cycle.
			s.log.Warn("response_time_metric failed", "backend", s.name, "app", a.Name, "err", err)
			s.markSolo(a.ResponseTimeMetric)
		default:
			if rtSamples, err = samplesOf(v); err != nil || isScalar(v) {
				s.markSolo(a.ResponseTimeMetric)
			}
		}
	}
	return result(samples, rtSamples, rt), nil
}

func isScalar(v model.Value) bool {
	_, ok := v.(*model.Scalar)
	return ok
}

func (s *PrometheusSource) markSolo(expr string) {
	s.mu.Lock()
	s.solo[expr] = true
	s.mu.Unlock()
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

// result applies the rulings: no sample is unavailable; up only if every
// sample is non-zero and not NaN; a zero makes it down.
func result(samples, rtSamples model.Vector, roundTrip time.Duration) Result {
	r := Result{ResponseTime: roundTrip}
	if len(rtSamples) > 0 {
		// The slowest series speaks for the app.
		worst := math.Inf(-1)
		for _, smp := range rtSamples {
			if f := float64(smp.Value); !math.IsNaN(f) && f > worst {
				worst = f
			}
		}
		if !math.IsInf(worst, -1) && worst >= 0 {
			r.ResponseTime = time.Duration(worst * float64(time.Second))
		}
	}
	if len(samples) == 0 {
		r.Status, r.Err = StatusUnavailable, errors.New("no sample")
		return r
	}
	r.Status = StatusUp
	for _, smp := range samples {
		f := float64(smp.Value)
		switch {
		case f == 0:
			r.Status, r.Err = StatusDown, nil
			return r
		case math.IsNaN(f):
			r.Status, r.Err = StatusUnavailable, errors.New("sample is NaN")
		}
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
	if len(warnings) > 0 {
		s.log.Warn("prometheus returned warnings", "backend", s.name, "warnings", []string(warnings))
	}
	if err != nil {
		return nil, rt, fmt.Errorf("prometheus %s: %w", s.name, err)
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

// isExpressionError reports whether the server answered but refused or
// failed to evaluate the expression: the fault is the query's, not the
// server's.
func isExpressionError(err error) bool {
	var e *v1.Error
	if !errors.As(err, &e) {
		return false
	}
	if e.Type == v1.ErrBadData && strings.Contains(e.Msg, `invalid parameter "`) &&
		!strings.Contains(e.Msg, `invalid parameter "query"`) {
		// The server refused another parameter of ours (time, timeout):
		// blaming the expression would mark every app as not combinable.
		return false
	}
	return e.Type == v1.ErrBadData || e.Type == v1.ErrExec
}
