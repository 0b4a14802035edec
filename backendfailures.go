package availmon

import (
	"github.com/availmon/availmon/internal/errtext"

	"context"
	"errors"
	"time"
)

// backendFailure is what one cycle saw fail on one backend.
type backendFailure struct {
	batches int
	apps    int
	first   error
}

func (f *backendFailure) add(apps int, err error) {
	f.batches++
	f.apps += apps
	if f.first == nil {
		f.first = err
	}
}

// logFailures logs a backend whose checks fail when they start failing,
// with the first error, and when every batch answers again, with how many
// cycles failed: a backend down for a day at 5 s costs two lines, not
// 17,280. Meanwhile availmon_backend_connected and
// availmon_scrape_errors_total say so. A DetailedError's Detail, such as
// the server's own message, is logged here and nowhere else.
func (m *Monitor) logFailures(p *plan, out *cycleResult) {
	now := m.clock.Now()
	for b, f := range out.failures {
		name := p.backends[b].Name
		if f.batches == 0 {
			if out.tried[b] {
				m.infoEnded(backendKey(name), now, "backend answering again", "failed_cycles", "backend", name)
			}
			continue
		}
		attrs := []any{"backend", name, "failed_batches", f.batches, "apps", f.apps,
			"err", errtext.Truncate(f.first.Error(), maxErrorText)}
		var de DetailedError
		if errors.As(f.first, &de) {
			attrs = append(attrs, "detail", de.Detail())
		}
		m.warnStarted(backendKey(name), now, "backend check failed", attrs...)
	}
	m.conds.EndUnless(backendKeyPrefix, func(name string) bool {
		_, ok := p.backendIndex(name)
		return ok
	})
}

const backendKeyPrefix = "backend\x00"

func backendKey(backend string) string { return backendKeyPrefix + backend }

// observeRequests gives a Source that reports its own requests
// (RequestReporter) the observer for backend b's scrape metrics, so that
// every request is one observation: a batch that falls back to one query
// per app counts each. perRequest is false for other Sources, whose Check
// calls the Monitor counts.
func (m *Monitor) observeRequests(ctx context.Context, p *plan, b int) (_ context.Context, perRequest bool) {
	if !reportsRequests(p.backends[b].Source) {
		return ctx, false
	}
	name := p.backends[b].Name
	return WithRequestObserver(ctx, func(d time.Duration, err error) {
		m.exp.ObserveScrape(name, d, err)
	}), true
}
