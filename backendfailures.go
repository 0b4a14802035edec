package availmon

import (
	"github.com/availmon/availmon/internal/errtext"

	"context"
	"errors"
	"time"
)

// backendFailure is what one cycle saw fail on one backend. A backend that
// fails, fails every batch: it is logged once per cycle, not once per batch.
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

// logFailures logs each backend that failed some batch of the cycle, with
// the first error. A DetailedError's Detail, such as the server's own
// message, is logged here and nowhere else.
func (m *Monitor) logFailures(p *plan, out *cycleResult) {
	for b, f := range out.failures {
		if f.batches == 0 {
			continue
		}
		attrs := []any{"backend", p.backends[b].Name, "failed_batches", f.batches, "apps", f.apps,
			"err", errtext.Truncate(f.first.Error(), maxErrorText)}
		var de DetailedError
		if errors.As(f.first, &de) {
			attrs = append(attrs, "detail", de.Detail())
		}
		m.log.Warn("backend check failed", attrs...)
	}
}

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
