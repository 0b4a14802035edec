package availmon

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon/internal/promtest"
)

// statusData is GET /api/status's data.
func statusData(t *testing.T, tm *testMonitor) map[string]any {
	t.Helper()
	code, body := get(t, tm.h, "/api/status")
	if code != 200 {
		t.Fatalf("GET /api/status: %d", code)
	}
	return body["data"].(map[string]any)
}

// A failing discovery query degrades system_status and is named in the
// discovery member, although the rule's backend answers the listed apps
// (prometheus_connectivity stays connected); the rule answering again
// heals both.
func TestDiscoveryFailureDegradesStatus(t *testing.T) {
	tm, q := discoveryMonitor(t, func(o *Options) {
		o.Apps[0].Backend = "prom" // the backend answers a listed app
	})
	q.fakeSource.Set("checkout", StatusUp, 0)
	q.set(nil, sample(1, "service", "cart", "region", "il"))
	tm.startRun(t)
	tm.scrape(t)
	ok := map[string]any{"status": "ok", "rules": 1.0, "failing_rules": []any{}}
	d := statusData(t, tm)
	if d["system_status"] != "healthy" || !cmp.Equal(d["discovery"], ok) {
		t.Fatalf("answering: system_status %v, discovery %v", d["system_status"], d["discovery"])
	}

	q.set(errors.New("prometheus prom: query timed out"))
	tm.clock.Advance(time.Second)
	failedAt := tm.clock.Now()
	for range 3 {
		tm.scrape(t)
		tm.clock.Advance(time.Second)
	}
	d = statusData(t, tm)
	want := map[string]any{"status": "failing", "rules": 1.0, "failing_rules": []any{map[string]any{
		"rule": "services", "backend": "prom", "error": "prometheus prom: query timed out", "since": ts(failedAt)}}}
	if d["system_status"] != "degraded" || d["prometheus_connectivity"] != "connected" {
		t.Errorf("failing: system_status %v, prometheus_connectivity %v; want degraded, connected",
			d["system_status"], d["prometheus_connectivity"])
	}
	if diff := cmp.Diff(want, d["discovery"]); diff != "" {
		t.Errorf("failing: discovery (-want +got):\n%s", diff)
	}
	if m := metricsText(t, tm.h); !strings.Contains(m, `availmon_discovery_failing{rule="services"} 1`) {
		t.Errorf("/metrics lacks the failing rule:\n%s", m)
	}

	q.set(nil, sample(1, "service", "cart", "region", "il"))
	tm.scrape(t)
	d = statusData(t, tm)
	if d["system_status"] != "healthy" || !cmp.Equal(d["discovery"], ok) {
		t.Errorf("answering again: system_status %v, discovery %v", d["system_status"], d["discovery"])
	}
	if m := metricsText(t, tm.h); !strings.Contains(m, `availmon_discovery_failing{rule="services"} 0`) {
		t.Errorf("/metrics still has the rule failing:\n%s", m)
	}
}

// Without discovery rules /api/status has no discovery member.
func TestStatusWithoutRulesHasNoDiscovery(t *testing.T) {
	tm := newTestMonitor(t)
	tm.startRun(t)
	if d, ok := statusData(t, tm)["discovery"]; ok {
		t.Errorf("discovery member without rules: %v", d)
	}
}

// What a rule's answers skip or fail at cycle after cycle is logged when
// it starts and when it ends, with the cycles it lasted, and is a metric
// meanwhile: one series with an unmapped location label, a rule at
// max_apps, a failing query.
func TestDiscoveryConditionsLoggedAtStartAndEnd(t *testing.T) {
	var logs promtest.SyncBuffer
	tm, q := discoveryMonitor(t, func(o *Options) {
		o.Discover[0].MaxApps = 1
		o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	q.set(nil,
		sample(1, "service", "a", "region", "il"),
		sample(1, "service", "b", "region", "il"),   // past max_apps
		sample(1, "service", "x", "region", "mars"), // unmapped
	)
	const cycles = 50
	for i := range cycles {
		tm.scrape(t)
		tm.clock.Advance(5 * time.Second)
		if i == cycles/2 {
			m := metricsText(t, tm.h)
			for _, s := range []string{
				`availmon_discovery_series_skipped{reason="unmapped_location",rule="services"} 1`,
				`availmon_discovery_series_skipped{reason="max_apps",rule="services"} 1`,
			} {
				if !strings.Contains(m, s) {
					t.Errorf("meanwhile, /metrics lacks %s", s)
				}
			}
		}
	}
	q.set(nil, sample(1, "service", "a", "region", "il"))
	for range 3 {
		tm.scrape(t)
		tm.clock.Advance(5 * time.Second)
	}
	q.set(errors.New("prometheus prom: connection refused"))
	for range cycles {
		tm.scrape(t)
		tm.clock.Advance(5 * time.Second)
	}
	q.set(nil, sample(1, "service", "a", "region", "il"))
	for range 3 {
		tm.scrape(t)
		tm.clock.Advance(5 * time.Second)
	}
	out := logs.String()
	if n := strings.Count(out, "level=WARN"); n != 3 {
		t.Errorf("%d warnings, want 3 (one per condition as it starts):\n%s", n, out)
	}
	for _, want := range []string{
		`level=WARN msg="discovery: series whose location label maps to no location are skipped" rule=services label=region series=1 values=[mars]`,
		`level=WARN msg="discovery: the rule holds max_apps apps; new ones are ignored" rule=services max_apps=1 ignored=1`,
		`level=INFO msg="discovery: no more series skipped" rule=services reason=unmapped_location cycles=50 lasted=4m10s`,
		`level=INFO msg="discovery: no more series skipped" rule=services reason=max_apps cycles=50 lasted=4m10s`,
		`level=WARN msg="discovery query failed; its apps are unavailable until it answers" rule=services backend=prom apps=1 err="prometheus prom: connection refused"`,
		`level=INFO msg="discovery query answering again" rule=services failed_cycles=50 lasted=4m10s`,
	} {
		if strings.Count(out, want) != 1 {
			t.Errorf("the log has not exactly one line with %s:\n%s", want, out)
		}
	}
}
