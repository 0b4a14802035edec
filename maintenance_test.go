package availmon

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// figures are what a maintenance window must change, read from the API.
type figures struct {
	AppMaint                 bool
	AppStatus                string
	StatusDown, StatusMaint  float64
	Overall                  any
	TLVDown, TLVMaint        float64
	TLVAvail                 any
	SearchUptime24h          any
	TotalRequests            float64
	HistAvail, HistDown      any
	MetricMaint, MetricUp    bool
	TLVRatioMetric, AppsDown string
}

func readFigures(t *testing.T, tm *testMonitor) figures {
	t.Helper()
	var f figures
	_, app := get(t, tm.h, "/api/apps/search")
	d := app["data"].(map[string]any)
	f.AppMaint, _ = d["maintenance"].(bool)
	f.AppStatus = d["status"].(string)
	_, st := get(t, tm.h, "/api/status")
	sd := st["data"].(map[string]any)
	f.StatusDown, f.Overall = sd["applications_down"].(float64), sd["overall_availability"]
	f.StatusMaint, _ = sd["applications_maintenance"].(float64) // left out when 0
	_, loc := get(t, tm.h, "/api/locations/Tel%20Aviv")
	sum := loc["data"].(map[string]any)["summary"].(map[string]any)
	f.TLVDown, f.TLVAvail = sum["down_count"].(float64), sum["availability_percentage"]
	f.TLVMaint, _ = sum["maintenance_count"].(float64)
	_, ms := get(t, tm.h, "/api/metrics/summary")
	md := ms["data"].(map[string]any)
	f.TotalRequests = md["total_requests"].(float64)
	for _, a := range md["apps_summary"].([]any) {
		if a := a.(map[string]any); a["name"] == "search" {
			f.SearchUptime24h = a["uptime_24h"]
		}
	}
	_, h := get(t, tm.h, "/api/status/history?period=1h&resolution=1m")
	pts := h["data"].(map[string]any)["data_points"].([]any)
	last := pts[len(pts)-1].(map[string]any)
	f.HistAvail, f.HistDown = last["overall_availability"], last["apps_down"]
	body := do(t, tm.h, http.MethodGet, "/metrics", "", nil).Body.String()
	f.MetricMaint = strings.Contains(body, `availmon_maintenance{app="search",location="Tel Aviv"} 1`)
	f.MetricUp = strings.Contains(body, `availmon_up{app="search",location="Tel Aviv"}`)
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, `availmon_location_availability_ratio{location="Tel Aviv"} `); ok {
			f.TLVRatioMetric = v
		}
		if v, ok := strings.CutPrefix(line, `availmon_apps{status="down"} `); ok {
			f.AppsDown = v
		}
	}
	return f
}

// TestMaintenanceWindowFigures opens and closes a window on search under a
// fake clock and checks every figure it should change, and only those.
// search is down, up, down, up in four cycles a minute apart; the window
// covers the second and third.
func TestMaintenanceWindowFigures(t *testing.T) {
	tm := newTestMonitor(t, func(o *Options) {
		o.Maintenance = []MaintenanceWindow{{App: "search", From: t0.Add(time.Minute), To: t0.Add(3 * time.Minute), Comment: "upgrade"}}
	})
	tm.src.Set("checkout", StatusUp, 0)
	tm.src.Set("billing", StatusUp, 0)
	steps := []struct {
		search Status
		want   figures
	}{
		{StatusDown, figures{AppStatus: "down", StatusDown: 1, Overall: 66.67, TLVDown: 1, TLVAvail: 50.0, SearchUptime24h: 0.0,
			TotalRequests: 3, HistAvail: 66.67, HistDown: 1.0, MetricUp: true, TLVRatioMetric: "0.5", AppsDown: "1"}},
		{StatusUp, figures{AppMaint: true, AppStatus: "up", StatusMaint: 1, Overall: 100.0, TLVMaint: 1, TLVAvail: 100.0, SearchUptime24h: 0.0,
			TotalRequests: 5, HistAvail: 100.0, HistDown: 0.0, MetricMaint: true, MetricUp: true, TLVRatioMetric: "1", AppsDown: "0"}},
		{StatusDown, figures{AppMaint: true, AppStatus: "down", StatusMaint: 1, Overall: 100.0, TLVMaint: 1, TLVAvail: 100.0, SearchUptime24h: 0.0,
			TotalRequests: 7, HistAvail: 100.0, HistDown: 0.0, MetricMaint: true, MetricUp: true, TLVRatioMetric: "1", AppsDown: "0"}},
		{StatusUp, figures{AppStatus: "up", Overall: 100.0, TLVAvail: 100.0, SearchUptime24h: 50.0,
			TotalRequests: 10, HistAvail: 100.0, HistDown: 0.0, MetricUp: true, TLVRatioMetric: "1", AppsDown: "0"}},
	}
	for i, step := range steps {
		tm.clock.Set(t0.Add(time.Duration(i) * time.Minute))
		tm.src.Set("search", step.search, 0)
		tm.scrape(t)
		if d := cmp.Diff(step.want, readFigures(t, tm)); d != "" {
			t.Errorf("cycle %d at %s (-want +got):\n%s", i, tm.clock.Now().Format("15:04"), d)
		}
	}
	// The app's own history still has every check.
	_, app := get(t, tm.h, "/api/apps/search")
	if n := len(app["data"].(map[string]any)["history"].([]any)); n != 4 {
		t.Errorf("history has %d checks, want 4", n)
	}
}

// A recurring window at 01:30 Europe/Berlin for an hour, across the spring
// change of 2026-03-29 (02:00 CET -> 03:00 CEST): in UTC it moves from
// 00:30-01:30 to 23:30-00:30 the day before. A window at 02:30, a local time
// that does not exist that night, is skipped; in autumn one at 02:30 opens
// twice (both 02:30 CEST and 02:30 CET), as cron does.
func TestMaintenanceRecurringAcrossDST(t *testing.T) {
	utc := func(mo time.Month, d, h, m int) time.Time { return time.Date(2026, mo, d, h, m, 0, 0, time.UTC) }
	tests := []struct {
		cron string
		at   time.Time
		want bool
	}{
		{"30 1 * * *", utc(3, 28, 0, 29), false},
		{"30 1 * * *", utc(3, 28, 0, 30), true}, // 01:30 CET
		{"30 1 * * *", utc(3, 28, 1, 29), true},
		{"30 1 * * *", utc(3, 28, 1, 30), false},
		{"30 1 * * *", utc(3, 29, 0, 30), true}, // 01:30 CET, before the change
		{"30 1 * * *", utc(3, 29, 1, 30), false},
		{"30 1 * * *", utc(3, 29, 23, 29), false},
		{"30 1 * * *", utc(3, 29, 23, 30), true}, // 01:30 CEST on the 30th
		{"30 1 * * *", utc(3, 30, 0, 29), true},
		{"30 1 * * *", utc(3, 30, 0, 30), false}, // an hour earlier in UTC than before
		{"30 2 * * *", utc(3, 29, 0, 45), false}, // 02:30 does not exist on the 29th
		{"30 2 * * *", utc(3, 29, 1, 45), false},
		{"30 2 * * *", utc(3, 30, 0, 45), true},  // 02:30 CEST on the 30th
		{"30 2 * * *", utc(10, 25, 0, 45), true}, // 02:30 CEST
		{"30 2 * * *", utc(10, 25, 1, 15), false},
		{"30 2 * * *", utc(10, 25, 1, 45), true}, // 02:30 CET, the same local time again
	}
	for _, tt := range tests {
		w := MaintenanceWindow{App: "search", Cron: tt.cron, Duration: 30 * time.Minute, TimeZone: "Europe/Berlin"}
		if tt.cron == "30 1 * * *" {
			w.Duration = time.Hour
		}
		mt, errs := newMaintenance([]MaintenanceWindow{w}, t0)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		if got := mt.windows[0].active(tt.at); got != tt.want {
			t.Errorf("%s for %s, at %s (%s): active %v, want %v", tt.cron, w.Duration, tt.at.Format(time.RFC3339),
				tt.at.In(mt.windows[0].loc).Format("15:04 MST"), got, tt.want)
		}
	}
	// The same through a monitor: search is in maintenance in the cycle at
	// 23:45 UTC on the 29th, which is 01:45 CEST on the 30th.
	tm := newTestMonitor(t, func(o *Options) {
		o.Maintenance = []MaintenanceWindow{{App: "search", Cron: "30 1 * * *", Duration: time.Hour, TimeZone: "Europe/Berlin"}}
	})
	for _, c := range []struct {
		at   time.Time
		want bool
	}{{utc(3, 29, 0, 45), true}, {utc(3, 29, 12, 0), false}, {utc(3, 29, 23, 45), true}, {utc(3, 30, 0, 45), false}} {
		tm.clock.Set(c.at)
		tm.scrape(t)
		if got := tm.snap.Load().apps[1].maint(); got != c.want {
			t.Errorf("cycle at %s: maintenance %v, want %v", c.at.Format(time.RFC3339), got, c.want)
		}
	}
}

func TestMaintenanceTargets(t *testing.T) {
	tm := newServiceMonitor(t, []Service{{Name: "checkout"}})
	p := tm.plan
	tests := []struct {
		name string
		w    MaintenanceWindow
		want []string
	}{
		{"app", MaintenanceWindow{App: "search-tlv"}, []string{"search-tlv"}},
		{"location", MaintenanceWindow{Location: "Frankfurt"}, []string{"checkout-fra", "search-fra"}},
		{"service", MaintenanceWindow{Service: "checkout"}, []string{"checkout-tlv-1", "checkout-tlv-2", "checkout-fra", "checkout-ber"}},
		{"labels", MaintenanceWindow{Labels: map[string]string{"team": "s"}}, []string{"search-tlv", "search-fra"}},
		{"service and location", MaintenanceWindow{Service: "checkout", Location: "Tel Aviv"}, []string{"checkout-tlv-1", "checkout-tlv-2"}},
		{"app and another location", MaintenanceWindow{App: "search-tlv", Location: "Berlin"}, nil},
	}
	for _, tt := range tests {
		into := make([]bool, len(p.apps))
		w := &maintWindow{MaintenanceWindow: tt.w}
		w.mark(p, into)
		var got []string
		for i, in := range into {
			if in {
				got = append(got, p.apps[i].Name)
			}
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}

func TestMaintenanceOptionsErrors(t *testing.T) {
	from := t0
	tests := []struct {
		w    MaintenanceWindow
		want string
	}{
		{MaintenanceWindow{From: from, To: from.Add(time.Hour)}, "name the apps"},
		{MaintenanceWindow{App: "checkout"}, "set from and to (one-off), duration alone (one-off, starting now) or cron and duration"},
		{MaintenanceWindow{App: "checkout", Duration: time.Hour, TimeZone: "UTC"}, "set from and to (one-off), duration alone"},
		{MaintenanceWindow{App: "checkout", Duration: -time.Hour}, "duration -1h0m0s is outside"},
		{MaintenanceWindow{App: "checkout", Duration: 32 * 24 * time.Hour}, "is outside"},
		{MaintenanceWindow{App: "checkout", From: from, Duration: time.Hour}, "duration alone (one-off, starting now)"},
		{MaintenanceWindow{App: "checkout", From: from}, "from before to"},
		{MaintenanceWindow{App: "checkout", From: from, To: from}, "from before to"},
		{MaintenanceWindow{App: "checkout", From: from, To: from.Add(time.Hour), Cron: "@daily"}, "not a mix of them"},
		{MaintenanceWindow{App: "checkout", Cron: "61 * * * *", Duration: time.Hour}, `cron "61 * * * *"`},
		{MaintenanceWindow{App: "checkout", Cron: "0 0 * * * *", Duration: time.Hour}, `cron "0 0 * * * *"`},
		{MaintenanceWindow{App: "checkout", Cron: "CRON_TZ=UTC 0 1 * * *", Duration: time.Hour}, "give the zone as time_zone"},
		{MaintenanceWindow{App: "checkout", Cron: "@daily"}, "duration 0s is outside"},
		{MaintenanceWindow{App: "checkout", Cron: "@daily", Duration: 32 * 24 * time.Hour}, "is outside"},
		{MaintenanceWindow{App: "checkout", Cron: "@daily", Duration: time.Hour, TimeZone: "Mars/Olympus"}, `time_zone "Mars/Olympus"`},
		{MaintenanceWindow{App: "checkout", Cron: "@daily", Duration: time.Hour, TimeZone: "Local"}, `time_zone "Local"`},
		{MaintenanceWindow{App: "nope", From: from, To: from.Add(time.Hour)}, `no app is named "nope"`},
		{MaintenanceWindow{Location: "Mars", From: from, To: from.Add(time.Hour)}, `no location is named "Mars"`},
		{MaintenanceWindow{Service: "nope", From: from, To: from.Add(time.Hour)}, `no service is named "nope"`},
		{MaintenanceWindow{Labels: map[string]string{"team": "a"}, From: from, To: from.Add(time.Hour)}, `no app has a label "team"`},
		{MaintenanceWindow{Labels: map[string]string{"a-b": "a"}, From: from, To: from.Add(time.Hour)}, `label "a-b"`},
		{MaintenanceWindow{App: "checkout", From: from, To: from.Add(time.Hour), Comment: strings.Repeat("x", 2000)}, "comment is longer"},
	}
	for _, tt := range tests {
		o := Options{Locations: []Location{telAviv}, Apps: []App{{Name: "checkout", Location: "Tel Aviv", Metric: "up"}},
			Source: newFakeSource(), Maintenance: []MaintenanceWindow{tt.w}}
		if _, err := New(o); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%+v): %v, want %q", tt.w, err, tt.want)
		}
	}
	o := Options{Locations: []Location{telAviv}, Apps: []App{{Name: "checkout", Location: "Tel Aviv", Metric: "up"}}, Source: newFakeSource(),
		Maintenance: []MaintenanceWindow{{ID: "x", App: "checkout", Cron: "@daily", Duration: time.Hour}, {ID: "x", App: "checkout", Cron: "@daily", Duration: time.Hour}}}
	if _, err := New(o); err == nil || !strings.Contains(err.Error(), `"x" is listed twice`) {
		t.Errorf("two windows named x: %v", err)
	}
	o.Maintenance = o.Maintenance[:1]
	o.Maintenance[0].ID = "api-3"
	if _, err := New(o); err == nil || !strings.Contains(err.Error(), "are given by availmon") {
		t.Errorf("a window named api-3: %v", err)
	}
}
