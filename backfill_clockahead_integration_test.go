package availmon_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
	"github.com/availmon/availmon/internal/promtest"
	"github.com/availmon/availmon/promsource"
)

// A monitor whose clock reads 35 days ahead of Prometheus's (a host with a
// wrong clock, a replayed state) backfills its discovered apps at a
// second's resolution, where the data ends mid-day for every app, without
// a range query of more steps than Prometheus answers (11,000), and the
// backfill ends: none is refused as bad input.
func TestBackfillClockAheadWithinPrometheusSteps(t *testing.T) {
	t.Parallel()
	now := time.Now()
	srv, _, _ := startDemoPast(t, now.Truncate(time.Minute), 10*24*time.Hour)
	steps := &rangeSteps{next: http.DefaultTransport}
	src, err := promsource.New(promsource.Options{Name: "main", URL: srv.URL(), RoundTripper: steps, QueryTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var log promtest.SyncBuffer
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv", Latitude: 32, Longitude: 34, Match: []string{"steady", "flaky"}}},
		Backends:  []availmon.Backend{{Name: "main", URL: srv.URL(), Source: src, BatchSize: promsource.BatchSize}},
		Discover:  []availmon.DiscoveryRule{{Name: "demo", Query: "demo_up", AppName: "{{ .app }}", LocationLabel: "app"}},
		Interval:  time.Second, Timeout: time.Second, Backfill: true,
		Clock:  availmontest.NewClock(now.Add(35 * 24 * time.Hour)),
		Logger: slog.New(slog.NewTextHandler(&log, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = m.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(log.String(), "record of availability done") {
		if time.Now().After(deadline) {
			t.Fatalf("the record's backfill did not end:\n%s", log.String())
		}
		time.Sleep(20 * time.Millisecond) // polling the log, not waiting for an outcome
	}
	most, query, n := steps.most()
	if n == 0 {
		t.Fatal("no range query: the test tests nothing")
	}
	t.Logf("%d range queries, the longest of %.0f steps: %s", n, most, query)
	if most > 11_000 {
		t.Errorf("a range query of %.0f steps, more than Prometheus answers: %s", most, query)
	}
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			t.Errorf("%s", l)
		}
	}
}

// rangeSteps records the most steps of the range queries sent through it.
type rangeSteps struct {
	next http.RoundTripper
	mu   sync.Mutex
	max  float64
	what string
	n    int
}

func (s *rangeSteps) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(r.URL.Path, "/query_range") {
		return s.next.RoundTrip(r)
	}
	form := r.URL.Query()
	if r.Method == http.MethodPost {
		c := r.Clone(r.Context())
		c.Body, _ = r.GetBody()
		if err := c.ParseForm(); err == nil {
			form = c.PostForm
		}
	}
	num := func(k string) float64 { v, _ := strconv.ParseFloat(form.Get(k), 64); return v }
	s.mu.Lock()
	s.n++
	if n := (num("end") - num("start")) / num("step"); n > s.max {
		s.max, s.what = n, fmt.Sprintf("start=%s end=%s step=%s", form.Get("start"), form.Get("end"), form.Get("step"))
	}
	s.mu.Unlock()
	return s.next.RoundTrip(r)
}

func (s *rangeSteps) most() (float64, string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.max, s.what, s.n
}
