package availmon_test

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
)

type wirePoint struct {
	Timestamp    time.Time `json:"timestamp"`
	Availability *float64  `json:"overall_availability"`
}

type wireBackfillSummary struct {
	Apps []struct {
		Name   string   `json:"name"`
		Uptime *float64 `json:"uptime_24h"`
	} `json:"apps_summary"`
}

// backfilledMonitor runs a Monitor with Backfill against srv, its clock
// reading now, until its backfill is done, and serves its API.
func backfilledMonitor(t *testing.T, srv *promtest.Server, now time.Time) *availtest.API {
	t.Helper()
	be, _ := availtest.PromBackend(t, "main", srv)
	var log promtest.SyncBuffer
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv", Latitude: 32, Longitude: 34}},
		Apps: []availmon.App{
			{Name: "steady", Location: "Tel Aviv", Metric: `demo_up{app="steady"}`},
			{Name: "flaky", Location: "Tel Aviv", Metric: `demo_up{app="flaky"}`},
		},
		Backends: []availmon.Backend{be},
		Interval: time.Hour, // one live cycle: the rest is the backfill's
		Backfill: true,
		Clock:    availmontest.NewClock(now),
		Logger:   slog.New(slog.NewTextHandler(&log, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(log.String(), `msg="backfill done"`) {
		if time.Now().After(deadline) {
			t.Fatalf("no backfill done in the log:\n%s", log.String())
		}
		time.Sleep(20 * time.Millisecond) // polling the log, not waiting for an outcome
	}
	if !strings.Contains(log.String(), "failed_queries=0") {
		t.Errorf("backfill queries failed:\n%s", log.String())
	}
	return availtest.ServeAPI(t, m)
}

// A fresh availmon pointed at a Prometheus that holds a day of the past
// shows it: an app down from T-3h to T-2h is down exactly then in the 24h
// history and in its uptime_24h, and a second instance started later
// answers the same. Both monitors' clocks read now: on the system clock,
// an hour that began while the test ran (in its last seconds before a full
// hour) moved the 24 clock hours of uptime_24h away from those the test
// counts, and the two instances apart, by an hour of checks.
func TestBackfillFromPrometheus(t *testing.T) {
	now := time.Now()
	T := now.Truncate(time.Minute)
	srv, downFrom, downTo := startDemoPast(t, T, 26*time.Hour)

	first := backfilledMonitor(t, srv, now)
	points := history24h(first)
	for _, p := range points[:len(points)-2] { // the last buckets are the live cycle's
		end := p.Timestamp.Add(5 * time.Minute)
		var want float64
		switch {
		case !p.Timestamp.Before(downFrom) && !end.After(downTo):
			want = 50 // one of two apps down
		case !end.After(downFrom) || !p.Timestamp.Before(downTo):
			want = 100
		default:
			continue // a bucket across an edge of the down period
		}
		if p.Availability == nil || *p.Availability != want {
			t.Errorf("bucket %s: availability %v, want %v", p.Timestamp.Format(time.TimeOnly), fmtPtr(p.Availability), want)
		}
	}
	// The 24h counters are per clock hour: the current hour and the 23
	// before it, one check a minute from the backfill.
	minutes := T.Sub(time.Unix((now.Unix()/3600-23)*3600, 0)).Minutes()
	want := 100 * (minutes - 60) / minutes
	up := uptimes24h(first)
	if math.Abs(up["flaky"]-want) > 0.15 || up["steady"] != 100 {
		t.Errorf("uptime_24h: flaky %v (want %.2f: 60 of %.0f minutes down), steady %v (want 100)", up["flaky"], want, minutes, up["steady"])
	}

	second := backfilledMonitor(t, srv, now)
	again := history24h(second)
	// The same 24 hours, bucket by bucket; the live ones are left out.
	seen := map[int64]wirePoint{}
	for _, b := range again[:len(again)-2] {
		seen[b.Timestamp.Unix()] = b
	}
	compared := 0
	for _, a := range points[:len(points)-2] {
		b, ok := seen[a.Timestamp.Unix()]
		if !ok {
			continue
		}
		compared++
		if fmtPtr(a.Availability) != fmtPtr(b.Availability) {
			t.Errorf("bucket %s: the first instance says %s, the second %s",
				a.Timestamp.Format(time.TimeOnly), fmtPtr(a.Availability), fmtPtr(b.Availability))
		}
	}
	if compared != len(points)-2 {
		t.Errorf("the two instances share only %d of %d buckets", compared, len(points)-2)
	}
	if up2 := uptimes24h(second); up2["flaky"] != up["flaky"] {
		t.Errorf("uptime_24h of flaky: %v on the first instance, %v on the second", up["flaky"], up2["flaky"])
	}
}

func fmtPtr(f *float64) string {
	if f == nil {
		return "null"
	}
	return fmt.Sprint(*f)
}
