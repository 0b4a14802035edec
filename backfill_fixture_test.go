package availmon_test

import (
	"testing"
	"time"

	"github.com/availmon/availmon/internal/availtest"
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

// history24h is the 24h history at 5-minute resolution, as a backfill
// fills it.
func history24h(c *availtest.API) []wirePoint {
	var resp struct {
		Data struct {
			Points []wirePoint `json:"data_points"`
		} `json:"data"`
	}
	c.Get("/api/status/history?period=24h&resolution=5m", &resp)
	return resp.Data.Points
}

// uptimes24h is each app's uptime_24h, for the apps that have one.
func uptimes24h(c *availtest.API) map[string]float64 {
	var resp struct{ Data wireBackfillSummary }
	c.Get("/api/metrics/summary", &resp)
	out := map[string]float64{}
	for _, a := range resp.Data.Apps {
		if a.Uptime != nil {
			out[a.Name] = *a.Uptime
		}
	}
	return out
}
