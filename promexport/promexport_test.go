package promexport_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/availmon/availmon/promexport"
)

func newExporter(s *promexport.Snapshot) *promexport.Exporter {
	return promexport.New(promexport.Options{
		Snapshot: func() *promexport.Snapshot { return s },
		Interval: func() time.Duration { return 30 * time.Second },
	})
}

func knownSnapshot() *promexport.Snapshot {
	return &promexport.Snapshot{
		Seq: 7,
		Apps: []promexport.App{
			{Name: "checkout", Location: "Tel Aviv", Status: "up"},
			{Name: "search", Location: "Tel Aviv", Status: "down"},
			{Name: "billing", Location: "Frankfurt", Status: "unavailable", Backend: "backup"},
		},
		Locations: []promexport.Location{
			{Name: "Tel Aviv", Up: 1, Down: 1},
			{Name: "Frankfurt", Unavailable: 1},
		},
		Backends: []promexport.Backend{
			{Name: "main", Connected: true, Known: true},
			{Name: "backup", Connected: false, Known: true},
			{Name: "never-asked"},
		},
		LastCycleEnd:      time.Unix(1767225600, 500_000_000),
		LastCycleDuration: 1500 * time.Millisecond,
	}
}

func TestCollectKnownSnapshot(t *testing.T) {
	e := newExporter(knownSnapshot())
	want := `
# HELP availmon_apps Number of apps in each state (up, down, unavailable).
# TYPE availmon_apps gauge
availmon_apps{status="down"} 1
availmon_apps{status="unavailable"} 1
availmon_apps{status="up"} 1
# HELP availmon_backend_connected Whether a backend answered the last check cycle: 1 yes, 0 no.
# TYPE availmon_backend_connected gauge
availmon_backend_connected{backend="backup"} 0
availmon_backend_connected{backend="main"} 1
# HELP availmon_last_cycle_duration_seconds How long the last check cycle took, in seconds.
# TYPE availmon_last_cycle_duration_seconds gauge
availmon_last_cycle_duration_seconds 1.5
# HELP availmon_last_cycle_timestamp_seconds Unix time at which the last check cycle completed.
# TYPE availmon_last_cycle_timestamp_seconds gauge
availmon_last_cycle_timestamp_seconds 1.7672256005e+09
# HELP availmon_location_availability_ratio Share of a location's apps with a known state that are up (0-1); absent when none is known.
# TYPE availmon_location_availability_ratio gauge
availmon_location_availability_ratio{location="Tel Aviv"} 0.5
# HELP availmon_scrape_interval_seconds The current interval between check cycles, in seconds.
# TYPE availmon_scrape_interval_seconds gauge
availmon_scrape_interval_seconds 30
# HELP availmon_unavailable 1 while an app's state is unavailable (no answer or no sample); absent otherwise. backend is the backend it is checked through.
# TYPE availmon_unavailable gauge
availmon_unavailable{app="billing",backend="backup",location="Frankfurt"} 1
# HELP availmon_up Availability of an app: 1 up, 0 down. Apps whose state is unavailable are absent; see availmon_unavailable.
# TYPE availmon_up gauge
availmon_up{app="checkout",location="Tel Aviv"} 1
availmon_up{app="search",location="Tel Aviv"} 0
`
	if err := testutil.CollectAndCompare(e, strings.NewReader(want),
		"availmon_apps", "availmon_backend_connected", "availmon_last_cycle_duration_seconds",
		"availmon_last_cycle_timestamp_seconds", "availmon_location_availability_ratio",
		"availmon_scrape_interval_seconds", "availmon_unavailable", "availmon_up"); err != nil {
		t.Error(err)
	}
}

// availmon_unavailable carries the exported labels as availmon_up does, so
// that an alert about an unavailable app keeps what Alertmanager routes on;
// an app that is up, down or not yet checked has none.
func TestUnavailableCarriesLabels(t *testing.T) {
	s := &promexport.Snapshot{Apps: []promexport.App{
		{Name: "checkout", Location: "Tel Aviv", Status: "unavailable", Backend: "main", Labels: []string{"payments"}},
		{Name: "search", Location: "Tel Aviv", Status: "unavailable", Backend: "http", Labels: []string{""}},
		{Name: "billing", Location: "Frankfurt", Status: "down", Backend: "main", Labels: []string{"payments"}},
		{Name: "new", Location: "Frankfurt", Backend: "main", Labels: []string{"payments"}},
	}}
	e := promexport.New(promexport.Options{
		Snapshot:     func() *promexport.Snapshot { return s },
		Interval:     func() time.Duration { return time.Minute },
		ExportLabels: []string{"team"},
	})
	want := `
# HELP availmon_unavailable 1 while an app's state is unavailable (no answer or no sample); absent otherwise. backend is the backend it is checked through.
# TYPE availmon_unavailable gauge
availmon_unavailable{app="checkout",backend="main",location="Tel Aviv",team="payments"} 1
availmon_unavailable{app="search",backend="http",location="Tel Aviv",team=""} 1
`
	if err := testutil.CollectAndCompare(e, strings.NewReader(want), "availmon_unavailable"); err != nil {
		t.Error(err)
	}
}

func TestObserve(t *testing.T) {
	e := newExporter(knownSnapshot())
	e.InitTarget("idle")
	e.ObserveScrape("main", 3*time.Millisecond, nil)
	e.ObserveScrape("main", 40*time.Millisecond, errors.New("refused"))
	e.ObserveRequest("GET", "/api/apps/{name}", 404)
	e.ObserveRequest("GET", "/api/apps/{name}", 404)
	e.ObserveRequest("BREW", "unmatched", 405)
	want := `
# HELP availmon_scrape_errors_total Total scrape requests to a backend that failed.
# TYPE availmon_scrape_errors_total counter
availmon_scrape_errors_total{target="idle"} 0
availmon_scrape_errors_total{target="main"} 1
# HELP http_requests_total Total HTTP requests served, by method, route pattern and status code.
# TYPE http_requests_total counter
http_requests_total{method="GET",path="/api/apps/{name}",status="404"} 2
http_requests_total{method="other",path="unmatched",status="405"} 1
`
	if err := testutil.CollectAndCompare(e.Live(), strings.NewReader(want), "availmon_scrape_errors_total", "http_requests_total"); err != nil {
		t.Error(err)
	}
	if got := testutil.CollectAndCount(e, "http_requests_total"); got != 0 {
		t.Errorf("the Exporter collects %d http_requests_total series, want none: Requests has them", got)
	}
	if got := testutil.CollectAndCount(e.Requests(), "http_requests_total"); got != 2 {
		t.Errorf("Requests collects %d http_requests_total series, want 2", got)
	}
	if got := testutil.CollectAndCount(e, "availmon_scrape_duration_seconds"); got != 2 {
		t.Errorf("availmon_scrape_duration_seconds has %d series, want 2 (idle, main)", got)
	}
}

func TestLint(t *testing.T) {
	e := newExporter(knownSnapshot())
	e.ObserveScrape("main", time.Millisecond, nil)
	e.ObserveRequest("GET", "/health", 200)
	for _, c := range []prometheus.Collector{e, e.Requests()} {
		problems, err := testutil.CollectAndLint(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("lint: %s: %s", p.Metric, p.Text)
		}
	}
}

// Two exporters (two monitors) on one registry must not collide when the
// caller tells them apart with a label.
func TestTwoExportersOneRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	for _, name := range []string{"a", "b"} {
		if err := prometheus.WrapRegistererWith(prometheus.Labels{"monitor": name}, reg).Register(newExporter(knownSnapshot())); err != nil {
			t.Fatalf("registering monitor %s: %v", name, err)
		}
	}
	if _, err := reg.Gather(); err != nil {
		t.Fatal(err)
	}
}

// The per-app metrics are rebuilt when the snapshot changes, not before.
func TestUpFollowsSnapshot(t *testing.T) {
	s := knownSnapshot()
	cur := s
	e := promexport.New(promexport.Options{
		Snapshot: func() *promexport.Snapshot { return cur },
		Interval: func() time.Duration { return time.Minute },
	})
	if got := testutil.CollectAndCount(e, "availmon_up"); got != 2 {
		t.Fatalf("availmon_up has %d series, want 2", got)
	}
	next := *s
	next.Seq++
	next.Apps = []promexport.App{{Name: "checkout", Location: "Tel Aviv", Status: "up"}}
	cur = &next
	if got := testutil.CollectAndCount(e, "availmon_up"); got != 1 {
		t.Fatalf("after a new snapshot availmon_up has %d series, want 1", got)
	}
}

func BenchmarkCollect10k(b *testing.B) {
	s := &promexport.Snapshot{Seq: 1}
	for i := range 10000 {
		s.Apps = append(s.Apps, promexport.App{Name: fmt.Sprintf("app-%05d", i), Location: "loc", Status: "up"})
	}
	s.Locations = []promexport.Location{{Name: "loc", Up: 10000}}
	reg := prometheus.NewRegistry()
	reg.MustRegister(newExporter(s))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := reg.Gather(); err != nil {
			b.Fatal(err)
		}
	}
}
