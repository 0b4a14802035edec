package availmon_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/promexport"
)

// objectivesPast is ten days of the three apps' own metric, one sample a
// minute up to T, as the exporter's scrapes would have left them. Against a
// 99% objective over 30 days, whose budget is 1% of the 10 days counted
// (144 minutes): fast is down from T-30m on (100x over 5m, 50x over 1h: it
// pages; 2.1x over 1d and 0.7x over 3d open no ticket), slow is down 3
// minutes of every hour of the last day (5x over 1d, 6h, 2h and 1h: a
// ticket, not a page; 72 minutes, half its budget), and maint is down like
// fast but inside a maintenance window from T-1h, which burns nothing. None
// has spent its budget.
func objectivesPast(exporter string, T time.Time) string {
	series := []string{}
	for _, app := range []string{"fast", "slow", "maint"} {
		series = append(series, fmt.Sprintf(`job="demo",instance=%q,app=%q`, exporter, app))
	}
	return promtest.OpenMetrics("demo_up", series, T.Add(-10*24*time.Hour), T, time.Minute,
		func(s string, at time.Time) float64 {
			switch {
			case strings.Contains(s, `app="slow"`) && at.After(T.Add(-24*time.Hour)) && at.Minute() >= 10 && at.Minute() < 13:
				return 0
			case !strings.Contains(s, `app="slow"`) && !at.Before(T.Add(-30*time.Minute)):
				return 0
			}
			return 1
		})
}

// End to end: the apps' own metrics in a real Prometheus; availmon, with an
// objective on each app, backfills them and exports its figures; the same
// Prometheus scrapes it with `availmon rules` loaded. The fast burn pages,
// the slow burn opens a ticket and does not page, and the fast burn inside
// a maintenance window does neither: ALERTS says so.
func TestObjectiveAlertsEndToEnd(t *testing.T) {
	T := time.Now().Truncate(time.Minute)
	exp := promtest.NewExporter(t)
	exp.Set("fast", 0)
	exp.Set("slow", 1)
	exp.Set("maint", 0)
	// availmon's /metrics must be a target before Prometheus starts, and
	// availmon needs Prometheus's address: the handler comes after.
	var handler atomic.Pointer[http.Handler]
	metrics := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := handler.Load(); h != nil {
			(*h).ServeHTTP(w, r)
			return
		}
		http.Error(w, "not yet", http.StatusServiceUnavailable)
	}))
	t.Cleanup(metrics.Close)
	rules, err := promexport.Rules(promexport.RuleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv := promtest.Start(t, promtest.Past(objectivesPast(exp.Target(), T)),
		promtest.Job("demo", exp.Target()), promtest.Job("availmon", metrics.Listener.Addr().String()),
		promtest.Rules(string(rules)))

	m, log := objectivesMonitor(t, srv, T)
	h := m.Handler()
	handler.Store(&h)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	waitForLog(t, log, `msg="backfill done"`)

	// The maintained objective is exported, with figures for its windows
	// that reach back before the maintenance, and none for those inside it.
	srv.WaitForQuery(t, `availmon_objective_burn_rate{objective="maint",window="1d"}`, promtest.SampleEquals(0))
	if v, err := srv.Query(context.Background(), `availmon_objective_burn_rate{objective="maint",window=~"5m|30m|1h"}`); err != nil || v.(model.Vector).Len() != 0 {
		t.Errorf("burn rates of maint inside its maintenance window: %v, %v; want none", v, err)
	}
	firing := `ALERTS{alertstate="firing",alertname=~"AvailmonObjective.*"}`
	got := srv.WaitForQuery(t, firing, func(v model.Value) bool {
		a := alertsOf(v)
		return slices.Contains(a, "AvailmonObjectiveFastBurn fast") && slices.Contains(a, "AvailmonObjectiveSlowBurn slow")
	})
	if diff := slices.Compare(alertsOf(got), []string{"AvailmonObjectiveFastBurn fast", "AvailmonObjectiveSlowBurn slow"}); diff != 0 {
		burns, _ := srv.Query(context.Background(), `availmon_objective_burn_rate or availmon_objective_error_budget_remaining_ratio`)
		t.Errorf("firing objective alerts %v, want the fast burn's page and the slow burn's ticket alone; figures:\n%v", alertsOf(got), burns)
	}
	// A fresh look, after some more evaluations: still nothing about maint.
	for _, q := range []string{firing, `ALERTS{objective="maint"}`} {
		v, err := srv.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if a := alertsOf(v); slices.ContainsFunc(a, func(s string) bool { return strings.HasSuffix(s, " maint") }) {
			t.Errorf("%s: %v; the burn inside a maintenance window must not alert", q, a)
		}
	}
}

// objectivesMonitor is a Monitor of fast, slow and maint from srv, with a
// 99% objective over 30 days on each, maint in maintenance from T-1h, and
// a backfill.
func objectivesMonitor(t *testing.T, srv *promtest.Server, T time.Time) (*availmon.Monitor, *promtest.SyncBuffer) {
	t.Helper()
	be, _ := availtest.PromBackend(t, "main", srv)
	target, err := objective.ParseTarget("99%")
	if err != nil {
		t.Fatal(err)
	}
	window, err := objective.ParseWindow("30d")
	if err != nil {
		t.Fatal(err)
	}
	o := availmon.Options{
		Locations:   []availmon.Location{{Name: "Tel Aviv", Latitude: 32, Longitude: 34}},
		Backends:    []availmon.Backend{be},
		Interval:    2 * time.Second,
		Backfill:    true,
		Maintenance: []availmon.MaintenanceWindow{{App: "maint", From: T.Add(-time.Hour), To: T.Add(24 * time.Hour)}},
	}
	for _, app := range []string{"fast", "slow", "maint"} {
		o.Apps = append(o.Apps, availmon.App{Name: app, Location: "Tel Aviv", Metric: fmt.Sprintf(`demo_up{app=%q}`, app)})
		o.Objectives = append(o.Objectives, objective.Objective{Name: app, Target: target, Window: window,
			Subject: objective.Subject{App: app}, Labels: map[string]string{"team": "shop"}})
	}
	var log promtest.SyncBuffer
	o.Logger = slog.New(slog.NewTextHandler(&log, nil))
	m, err := availmon.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return m, &log
}

// waitForLog polls log until it holds line.
func waitForLog(t *testing.T, log *promtest.SyncBuffer, line string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(log.String(), line) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s in the log:\n%s", line, log.String())
		}
		time.Sleep(20 * time.Millisecond) // polling the log, not waiting for an outcome
	}
}

// alertsOf lists the alerts of an ALERTS answer as "name objective", sorted.
func alertsOf(v model.Value) []string {
	var out []string
	for _, s := range v.(model.Vector) {
		out = append(out, string(s.Metric["alertname"])+" "+string(s.Metric["objective"]))
	}
	slices.Sort(out)
	return out
}
