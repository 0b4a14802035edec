package availmon_test

import (
	"testing"
	"time"

	"github.com/availmon/availmon/internal/promtest"
)

// startDemoPast starts a Prometheus that holds the past of demo_up for two
// apps, steady and flaky, one sample a minute from span before T (a whole
// minute) to 15 minutes after it, with flaky down from T-3h to T-2h, and
// waits until it answers. It returns the server and the down period.
func startDemoPast(t *testing.T, T time.Time, span time.Duration) (srv *promtest.Server, downFrom, downTo time.Time) {
	t.Helper()
	downFrom, downTo = T.Add(-3*time.Hour), T.Add(-2*time.Hour)
	past := promtest.OpenMetrics("demo_up", []string{`app="steady"`, `app="flaky"`},
		T.Add(-span), T.Add(15*time.Minute), time.Minute,
		func(series string, at time.Time) float64 {
			if series == `app="flaky"` && !at.Before(downFrom) && at.Before(downTo) {
				return 0
			}
			return 1
		})
	srv = promtest.Start(t, promtest.Past(past))
	srv.WaitForQuery(t, `demo_up`, promtest.SampleCount(2))
	return srv, downFrom, downTo
}
