package availmon

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/availmon/availmon/objective"
)

// latencyObjective is a latency objective of the test's own definitions.
func latencyObjective(t testing.TB, name, target, window string, threshold time.Duration, sub objective.Subject) objective.Objective {
	o := mustObjective(t, name, target, window, sub, nil)
	o.Kind, o.Threshold = objective.Latency, threshold
	return o
}

// An hour of checks every 30 s from t0 (a quarter past nothing: t0 starts a
// 15-minute bucket), the first quarter answered in 100 ms, the second every
// other check in 500 ms, the third all in 500 ms, the fourth unavailable
// without a measured time. Against a 300 ms threshold: 900 s good, then
// 450 s good and 450 s bad, then 900 s bad, then 900 s unknown.
func TestLatencyObjectiveFigures(t *testing.T) {
	tm := newTestMonitor(t, func(o *Options) {
		o.Objectives = []objective.Objective{
			latencyObjective(t, "fast", "99%", "1d", 300*time.Millisecond, objective.Subject{App: "checkout"}),
			latencyObjective(t, "fast-tlv", "99%", "1d", 300*time.Millisecond, objective.Subject{Location: "Tel Aviv"}),
			mustObjective(t, "avail", "99%", "1d", objective.Subject{App: "checkout"}, nil),
		}
	})
	for k := range 121 {
		tm.clock.Set(t0.Add(time.Duration(k) * 30 * time.Second))
		st, rt := StatusUp, 100*time.Millisecond
		switch {
		case k >= 30 && k < 60 && k%2 == 1, k >= 60 && k < 90:
			rt = 500 * time.Millisecond
		case k >= 90:
			st, rt = StatusUnavailable, 0
		}
		tm.src.Set("checkout", st, rt)
		tm.src.Set("search", StatusUp, time.Millisecond)
		tm.src.Set("billing", StatusUp, time.Millisecond)
		tm.scrape(t)
	}
	code, body := get(t, tm.h, "/api/objectives")
	if code != http.StatusOK {
		t.Fatalf("GET /api/objectives = %d %v", code, body)
	}
	got := map[string]obj{}
	for _, o := range body["data"].([]any) {
		got[o.(obj)["name"].(string)] = o.(obj)
	}
	rest := func(v float64) obj {
		return obj{"5m": nil, "30m": 100.0, "1h": v, "2h": v, "6h": v, "1d": v, "3d": v}
	}
	// checkout: 1350 s good, 1350 s bad, the last quarter unknown. Tel
	// Aviv adds search's hour, all good (1 ms): its 5m and 30m burns count
	// search's checks too.
	want := map[string]obj{
		"fast": {"name": "fast", "target": 0.99, "window": "1d", "kind": "latency", "latency_threshold_seconds": 0.3,
			"subject": obj{"kind": "app", "name": "checkout"}, "labels": obj{},
			"attainment": 0.5, "coverage": 2700.0 / 86400,
			"error_budget":         obj{"total_seconds": 27.0, "remaining_seconds": 27.0 - 1350, "remaining_ratio": (27.0 - 1350) / 27},
			"burn_rates":           rest(50.0),
			"projected_attainment": nil, "state": "breached"},
		"fast-tlv": {"name": "fast-tlv", "target": 0.99, "window": "1d", "kind": "latency", "latency_threshold_seconds": 0.3,
			"subject": obj{"kind": "location", "name": "Tel Aviv"}, "labels": obj{},
			"attainment": 4950.0 / 6300, "coverage": 6300.0 / (2 * 86400),
			"error_budget": obj{"total_seconds": 63.0, "remaining_seconds": 63.0 - 1350, "remaining_ratio": (63.0 - 1350) / 63},
			"burn_rates": obj{"5m": 0.0, "30m": 900.0 / 2700 / 0.01, "1h": 1350.0 / 6300 / 0.01, "2h": 1350.0 / 6300 / 0.01,
				"6h": 1350.0 / 6300 / 0.01, "1d": 1350.0 / 6300 / 0.01, "3d": 1350.0 / 6300 / 0.01},
			"projected_attainment": nil, "state": "breached"},
	}
	delete(got, "avail")
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(1e-9, 1e-6)); d != "" {
		t.Errorf("/api/objectives (-want +got):\n%s", d)
	}

	// The same families as availability objectives, told apart by name.
	rec := do(t, tm.h, http.MethodGet, "/metrics", "", nil)
	for _, line := range []string{
		`availmon_objective_attainment_ratio{objective="fast"} 0.5`,
		`availmon_objective_burn_rate{objective="fast",window="1h"} 50`,
		`availmon_objective_state{objective="fast",state="breached"} 1`,
	} {
		if !strings.Contains(rec.Body.String(), line+"\n") {
			t.Errorf("/metrics lacks %s", line)
		}
	}
}
