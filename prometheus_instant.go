package availmon

import (
	"context"
	"time"

	"github.com/prometheus/common/model"
)

// instantQuerier is a Source that can also run one PromQL query and hand back
// its series, which is what a discovery rule needs of its backend.
type instantQuerier interface {
	Instant(ctx context.Context, query string) (model.Vector, time.Duration, error)
}

var _ instantQuerier = (*PrometheusSource)(nil)

// Instant runs query once, with the source's client, timeout and error
// handling, and returns its samples (a scalar is one sample without labels)
// and the round trip.
func (s *PrometheusSource) Instant(ctx context.Context, query string) (model.Vector, time.Duration, error) {
	v, rt, err := s.query(ctx, query)
	if err != nil {
		return nil, rt, err
	}
	vec, err := samplesOf(v)
	return vec, rt, err
}
