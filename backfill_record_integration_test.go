package availmon_test

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/promtest"
)

// recordPast is 10 days of demo_up, one sample a minute, for three apps:
// a down twice, b down for 7 minutes, c without any sample for 2 hours.
type recordPast struct {
	T    time.Time
	down map[string][][2]time.Time
	gap  [2]time.Time
}

func (p recordPast) openMetrics(start time.Time) string {
	var b strings.Builder
	b.WriteString("# TYPE demo_up gauge\n")
	for _, app := range []string{"a", "b", "c"} {
		for t := start; !t.After(p.T.Add(15 * time.Minute)); t = t.Add(time.Minute) {
			if app == "c" && !t.Before(p.gap[0]) && t.Before(p.gap[1]) {
				continue
			}
			v := 1
			for _, d := range p.down[app] {
				if !t.Before(d[0]) && t.Before(d[1]) {
					v = 0
				}
			}
			fmt.Fprintf(&b, "demo_up{app=%q} %d %d\n", app, v, t.Unix())
		}
	}
	b.WriteString("# EOF\n")
	return b.String()
}

type wireOutage struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// A fresh availmon backfills each app's record from Prometheus: the
// outages and down time /api/apps/{name}/outages and /api/availability
// give are those written, a gap without data is unknown, never down, and
// the request count stays small.
func TestBackfillRecordFromPrometheus(t *testing.T) {
	T := time.Now().Truncate(time.Minute)
	day := 24 * time.Hour
	p := recordPast{T: T, down: map[string][][2]time.Time{
		"a": {{T.Add(-7*day + 3*time.Hour), T.Add(-7*day + 5*time.Hour + 30*time.Minute)}, {T.Add(-2*day - 90*time.Minute), T.Add(-2*day - 80*time.Minute)}},
		"b": {{T.Add(-3*day + 17*time.Minute), T.Add(-3*day + 24*time.Minute)}},
	}, gap: [2]time.Time{T.Add(-5 * day), T.Add(-5*day + 2*time.Hour)}}
	start := T.Add(-10 * day)
	srv := promtest.Start(t, promtest.Past(p.openMetrics(start)))
	srv.WaitForQuery(t, `demo_up`, promtest.SampleCount(3))

	be, _ := promBackend(t, "main", srv)
	var log promtest.SyncBuffer
	var apps []availmon.App
	for _, a := range []string{"a", "b", "c"} {
		apps = append(apps, availmon.App{Name: a, Location: "Tel Aviv", Metric: fmt.Sprintf(`demo_up{app=%q}`, a)})
	}
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv", Latitude: 32, Longitude: 34}},
		Apps:      apps, Backends: []availmon.Backend{be},
		Interval: time.Hour, Backfill: true,
		Logger: slog.New(slog.NewTextHandler(&log, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	c := serveAPI(t, m)
	waitBackfillDone(t, c, &log)
	if n := regexp.MustCompile(`record of availability done.* requests=(\d+)`).FindStringSubmatch(log.String()); n != nil {
		t.Logf("requests for 10 days of 3 apps: %s", n[1])
	}

	from, to := start.Add(time.Hour), T.Add(-time.Hour)
	q := fmt.Sprintf("?from=%s&to=%s", from.Format(time.RFC3339), to.Format(time.RFC3339))
	for _, app := range []string{"a", "b", "c"} {
		var resp struct {
			Data struct{ Outages []wireOutage } `json:"data"`
		}
		c.get("/api/apps/"+app+"/outages"+q, &resp)
		got := resp.Data.Outages
		want := p.down[app]
		if len(got) != len(want) {
			t.Errorf("%s: %d outages %+v, want %d", app, len(got), got, len(want))
			continue
		}
		for i, o := range got {
			if !o.Start.Equal(want[i][0]) || !o.End.Equal(want[i][1]) {
				t.Errorf("%s outage %d: %s to %s, want %s to %s", app, i, o.Start, o.End, want[i][0], want[i][1])
			}
		}
	}
	var av struct {
		Data struct {
			Items []struct {
				Name    string  `json:"name"`
				Down    float64 `json:"down_seconds"`
				Unknown float64 `json:"unknown_seconds"`
			} `json:"items"`
		} `json:"data"`
	}
	c.get("/api/availability?window=9d&by=app", &av)
	wantDown := map[string]float64{"a": (150 + 10) * 60, "b": 7 * 60, "c": 0}
	for _, it := range av.Data.Items {
		if it.Down != wantDown[it.Name] {
			t.Errorf("%s: down %v s, want %v", it.Name, it.Down, wantDown[it.Name])
		}
		// c's gap is unknown, less the lookback Prometheus reads past its
		// last sample.
		if it.Name == "c" && (it.Unknown < 115*60 || it.Unknown > 120*60) {
			t.Errorf("c: unknown %v s, want about 2h", it.Unknown)
		}
	}
}

// waitBackfillDone polls /api/status until its backfill is done.
func waitBackfillDone(t *testing.T, c *apiClient, log *promtest.SyncBuffer) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		var st struct {
			Data struct {
				Backfill struct {
					State    string  `json:"state"`
					Progress float64 `json:"progress"`
				} `json:"backfill"`
			} `json:"data"`
		}
		c.get("/api/status", &st)
		if st.Data.Backfill.State == "done" {
			if st.Data.Backfill.Progress != 1 {
				t.Errorf("backfill done at progress %v", st.Data.Backfill.Progress)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("backfill not done (%s):\n%s", st.Data.Backfill.State, log.String())
		}
		time.Sleep(50 * time.Millisecond) // polling a condition, not waiting for an outcome
	}
}
