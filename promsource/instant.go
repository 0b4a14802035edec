package promsource

import (
	"context"
	"time"

	"github.com/prometheus/common/model"

	"github.com/availmon/availmon"
)

var _ availmon.InstantQuerier = (*Source)(nil)

// Instant runs query once, with the source's client, timeout and error
// handling, and returns its samples (a scalar is one sample without labels)
// and the round trip.
func (s *Source) Instant(ctx context.Context, query string) (model.Vector, time.Duration, error) {
	v, rt, err := s.query(ctx, query)
	if err != nil {
		return nil, rt, err
	}
	vec, err := samplesOf(v)
	return vec, rt, err
}
