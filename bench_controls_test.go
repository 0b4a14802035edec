package availmon

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// labelledLargeMonitor is largeMonitor's fleet (10,000 apps over 100
// locations) with labels team (20 values) and env (2 values), and a service
// per team.
func labelledLargeMonitor(tb testing.TB) *Monitor {
	tb.Helper()
	clock := newFakeClock(t0)
	o := Options{
		Backends: []Backend{{Name: "main", URL: testPromURL, Source: benchSource{}, BatchSize: 100}},
		Clock:    clock,
	}
	for l := range 100 {
		o.Locations = append(o.Locations, Location{Name: fmt.Sprintf("location-%03d", l)})
	}
	for a := range 10_000 {
		o.Apps = append(o.Apps, App{Name: fmt.Sprintf("app-%05d", a), Location: o.Locations[a%100].Name,
			Metric: fmt.Sprintf(`up{job="app-%05d"}`, a),
			Labels: map[string]string{"team": fmt.Sprintf("team-%02d", a%20), "env": []string{"prod", "dev"}[a%2]}})
	}
	for t := range 20 {
		o.Services = append(o.Services, Service{Name: fmt.Sprintf("svc-%02d", t),
			Selector: map[string]string{"team": fmt.Sprintf("team-%02d", t)}, MinUpPercent: 50})
	}
	m, err := New(o)
	if err != nil {
		tb.Fatal(err)
	}
	for range 3 {
		if err := m.Scrape(context.Background()); err != nil {
			tb.Fatal(err)
		}
		clock.Advance(time.Minute)
	}
	return m
}

func benchControlsGet(b *testing.B, target string) {
	benchHandler(b, labelledLargeMonitor(b).Handler(), target)
}

// The whole list, for comparison with the filtered ones below.
func BenchmarkAppsUnfiltered(b *testing.B) { benchControlsGet(b, "/api/apps") }
func BenchmarkAppsFilterLocation(b *testing.B) {
	benchControlsGet(b, "/api/apps?location=location-042")
}
func BenchmarkAppsFilterLabel(b *testing.B)      { benchControlsGet(b, "/api/apps?label.team=team-07") }
func BenchmarkAppsFilterStatusDown(b *testing.B) { benchControlsGet(b, "/api/apps?status=down") }
func BenchmarkAppsFilterAll(b *testing.B) {
	benchControlsGet(b, "/api/apps?location=location-042&status=up&label.team=team-02&label.env=prod")
}
func BenchmarkServices(b *testing.B)     { benchControlsGet(b, "/api/services") }
func BenchmarkBadgeService(b *testing.B) { benchControlsGet(b, "/api/badges/services/svc-03.svg") }

// BenchmarkAppsFilterFirstRequest is the cost a new snapshot adds to the
// first filtered request: the per-state index and the apps' encodings.
func BenchmarkAppsFilterFirstRequest(b *testing.B) {
	m := labelledLargeMonitor(b)
	h := m.Handler()
	req := httptest.NewRequest(http.MethodGet, "/api/apps?label.team=team-07", nil)
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		m.publish(m.clock.Now(), m.events.cursor()) // a fresh snapshot, as a cycle makes
		b.StartTimer()
		h.ServeHTTP(w, req)
	}
}
