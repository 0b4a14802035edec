package availmon

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// liveLedgerMonitor runs an hour of 30-second cycles from t0 (121 of them,
// the last at t0+60m):
//   - checkout is down in [5m, 10m), and in an API window [30m, 40m) that is
//     deleted at 35m;
//   - search is in an API window [20m, 25m) set at 1m;
//   - billing is unavailable in [20m, 25m), and in a configuration window
//     every 20 minutes for 2 minutes ([0, 2m), [20m, 22m), [40m, 42m)).
func liveLedgerMonitor(t testing.TB) *testMonitor {
	t.Helper()
	tm := newTestMonitor(t, func(o *Options) {
		o.AllowUnauthenticatedWrites = true
		o.Maintenance = []MaintenanceWindow{{App: "billing", Cron: "*/20 * * * *", Duration: 2 * time.Minute}}
	})
	var deleteID string
	for k := range 121 {
		at := t0.Add(time.Duration(k) * 30 * time.Second)
		tm.clock.Set(at)
		switch at.Sub(t0) {
		case time.Minute:
			deleteID = postWindow(t, tm, `{"app":"checkout","from":"`+ts(t0.Add(30*time.Minute))+`","to":"`+ts(t0.Add(40*time.Minute))+`"}`)
			postWindow(t, tm, `{"app":"search","from":"`+ts(t0.Add(20*time.Minute))+`","to":"`+ts(t0.Add(25*time.Minute))+`"}`)
		case 35 * time.Minute:
			if rec := do(t, tm.h, http.MethodDelete, "/api/maintenance/"+deleteID, "", nil); rec.Code != http.StatusOK {
				t.Fatalf("DELETE: %d %s", rec.Code, rec.Body)
			}
		}
		checkout, billing := StatusUp, StatusUp
		if k >= 10 && k < 20 {
			checkout = StatusDown
		}
		if k >= 40 && k < 50 {
			billing = StatusUnavailable
		}
		tm.src.Set("checkout", checkout, time.Millisecond)
		tm.src.Set("search", StatusUp, time.Millisecond)
		tm.src.Set("billing", billing, time.Millisecond)
		tm.scrape(t)
	}
	return tm
}

func postWindow(t testing.TB, tm *testMonitor, body string) string {
	t.Helper()
	rec := do(t, tm.h, http.MethodPost, "/api/maintenance", body, nil)
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST /api/maintenance: %d %s", rec.Code, rec.Body)
	}
	return decode(t, rec.Body.Bytes())["data"].(obj)["id"].(string)
}

// items returns the rows of an /api/availability answer by name.
func items(t *testing.T, tm *testMonitor, query string) (obj, map[string]obj) {
	t.Helper()
	code, body := get(t, tm.h, "/api/availability?"+query)
	if code != http.StatusOK {
		t.Fatalf("GET /api/availability?%s = %d %v", query, code, body)
	}
	data := body["data"].(obj)
	out := make(map[string]obj)
	for _, it := range data["items"].([]any) {
		out[it.(obj)["name"].(string)] = it.(obj)
	}
	return data, out
}

func pct(part, whole float64) float64 { return math.Round(1e6*part/whole) / 1e4 }

// The figures of an hour recorded live through the monitor, with windows
// from the API and the configuration, against the figures worked out by
// hand in liveLedgerMonitor's comment.
func TestAvailabilityLive(t *testing.T) {
	tm := liveLedgerMonitor(t)
	data, apps := items(t, tm, "window=1h")
	if data["from"] != ts(t0) || data["to"] != ts(t0.Add(time.Hour)) || data["window"] != "1h" || data["period"] != nil ||
		data["time_zone"] != "UTC" || data["by"] != "app" || data["step"] != nil {
		t.Errorf("data: %v", data)
	}
	row := func(up, down, unknown, maint, downtime, outages float64) obj {
		r := obj{"up_seconds": up, "down_seconds": down, "unknown_seconds": unknown, "maintenance_seconds": maint,
			"downtime_seconds": downtime, "outages": outages, "approximate": false, "removed": false,
			"availability": pct(up, up+down), "coverage": pct(up+down, 3600-maint)}
		return r
	}
	withName := func(r obj, kv ...any) obj {
		for i := 0; i < len(kv); i += 2 {
			r[kv[i].(string)] = kv[i+1]
		}
		return r
	}
	want := map[string]obj{
		"checkout": withName(row(3000, 300, 0, 300, 300, 1), "name", "checkout", "location", "Tel Aviv"),
		"search":   withName(row(3300, 0, 0, 300, 0, 0), "name", "search", "location", "Tel Aviv"),
		"billing":  withName(row(3060, 0, 180, 360, 0, 0), "name", "billing", "location", "Frankfurt"),
	}
	if d := cmp.Diff(want, apps); d != "" {
		t.Errorf("by=app (-want +got):\n%s", d)
	}
	_, locs := items(t, tm, "window=1h&by=location")
	tlv := withName(row(6300, 300, 0, 600, 300, 1), "name", "Tel Aviv", "apps", 2.0)
	tlv["coverage"] = pct(6600, 7200-600)
	wantLocs := map[string]obj{
		"Tel Aviv":  tlv,
		"Frankfurt": withName(row(3060, 0, 180, 360, 0, 0), "name", "Frankfurt", "apps", 1.0),
	}
	if d := cmp.Diff(wantLocs, locs); d != "" {
		t.Errorf("by=location (-want +got):\n%s", d)
	}
	// A label or status filter sums only the apps it passes.
	if _, l := items(t, tm, "window=1h&by=location&status=up&location=Tel%20Aviv"); l["Tel Aviv"]["apps"] != 2.0 || len(l) != 1 {
		t.Errorf("filtered by=location: %v", l)
	}
	// The outages of checkout and of its location.
	code, body := get(t, tm.h, "/api/apps/checkout/outages?from="+url.QueryEscape(ts(t0)))
	os := body["data"].(obj)["outages"].([]any)
	if code != http.StatusOK || len(os) != 1 || os[0].(obj)["start"] != ts(t0.Add(5*time.Minute)) ||
		os[0].(obj)["end"] != ts(t0.Add(10*time.Minute)) || os[0].(obj)["duration_seconds"] != 300.0 || os[0].(obj)["ongoing"] != false {
		t.Errorf("checkout's outages: %d %v", code, body)
	}
	code, body = get(t, tm.h, "/api/locations/Tel%20Aviv/outages")
	if os := body["data"].(obj)["outages"].([]any); code != http.StatusOK || len(os) != 1 || os[0].(obj)["extent"] != "partial" {
		t.Errorf("Tel Aviv's outages: %d %v", code, body)
	}
}

// The answer of one snapshot is made once: a second request gets the
// same bytes and ETag, and a conditional one 304.
func TestAvailabilityCachedPerSnapshot(t *testing.T) {
	tm := liveLedgerMonitor(t)
	first := do(t, tm.h, http.MethodGet, "/api/availability?window=1h&by=location", "", nil)
	second := do(t, tm.h, http.MethodGet, "/api/availability?by=location&window=1h", "", nil)
	if first.Body.String() != second.Body.String() || first.Header().Get("ETag") == "" || first.Header().Get("ETag") != second.Header().Get("ETag") {
		t.Errorf("two requests of a snapshot: %q and %q", first.Header().Get("ETag"), second.Header().Get("ETag"))
	}
	if rec := do(t, tm.h, http.MethodGet, "/api/availability?window=1h&by=location", "", http.Header{"If-None-Match": {first.Header().Get("ETag")}}); rec.Code != http.StatusNotModified {
		t.Errorf("conditional request: %d", rec.Code)
	}
}

// A month across Berlin's change back from summer time (2026-10-25, a day
// of 25 hours): hourly checks for the month and a little more, checkout down
// for the hour from 2026-10-25T00:00Z. The figures in Europe/Berlin and in
// UTC, whole and per day.
func TestAvailabilityCalendarMonthDST(t *testing.T) {
	start := time.Date(2026, 9, 30, 22, 0, 0, 0, time.UTC) // 2026-10-01 00:00 in Berlin
	down := time.Date(2026, 10, 25, 0, 0, 0, 0, time.UTC)
	tm := newTestMonitor(t, func(o *Options) { o.Interval = time.Hour })
	for at := start; !at.After(time.Date(2026, 11, 1, 1, 0, 0, 0, time.UTC)); at = at.Add(time.Hour) {
		tm.clock.Set(at)
		st := StatusUp
		if at.Equal(down) {
			st = StatusDown
		}
		tm.src.Set("checkout", st, 0)
		tm.src.Set("search", StatusUp, 0)
		tm.src.Set("billing", StatusUp, 0)
		tm.scrape(t)
	}
	for _, tt := range []struct {
		tz           string
		from, to     time.Time
		days, longIx int
	}{
		{"Europe/Berlin", start, time.Date(2026, 10, 31, 23, 0, 0, 0, time.UTC), 31, 24},
		{"UTC", time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), 31, -1},
	} {
		t.Run(tt.tz, func(t *testing.T) {
			data, apps := items(t, tm, "period=2026-10&step=1d&tz="+url.QueryEscape(tt.tz))
			secs := tt.to.Sub(tt.from).Seconds()
			if data["from"] != ts(tt.from) || data["to"] != ts(tt.to) || data["time_zone"] != tt.tz || len(data["steps"].([]any)) != tt.days {
				t.Fatalf("data: from %v to %v zone %v, %d steps", data["from"], data["to"], data["time_zone"], len(data["steps"].([]any)))
			}
			c := apps["checkout"]
			if c["up_seconds"] != secs-3600 || c["down_seconds"] != 3600.0 || c["availability"] != pct(secs-3600, secs) || c["coverage"] != 100.0 {
				t.Errorf("checkout: %v (the month is %v s)", c, secs)
			}
			// The day that holds the down hour: 25 hours long in Berlin.
			day := c["steps"].([]any)[24].([]any)
			dayLen := 86400.0
			if tt.longIx == 24 {
				dayLen = 90000
			}
			if day[0] != dayLen-3600 || day[1] != 3600.0 {
				t.Errorf("checkout on 2026-10-25: %v", day)
			}
		})
	}
	if _, apps := items(t, tm, "period=2026-10-25&tz=Europe/Berlin"); apps["search"]["up_seconds"] != 90000.0 {
		t.Errorf("the 25-hour day in Berlin: %v", apps["search"])
	}
}

// Bad requests: 400 VALIDATION_ERROR naming what is accepted, unknown
// names 404 NOT_FOUND.
func TestAvailabilityBadInput(t *testing.T) {
	tm := liveLedgerMonitor(t)
	for _, tt := range []struct {
		target string
		status int
		detail string
	}{
		{"/api/availability?window=2y", 400, "allowed"},
		{"/api/availability?window=500d", 400, "400d"},
		{"/api/availability?period=2026-13", 400, "allowed forms"},
		{"/api/availability?period=2099", 400, "has not begun"},
		{"/api/availability?window=1h&period=2026", 400, "accepted query parameters"},
		{"/api/availability?tz=Mars/Olympus", 400, "time zone"},
		{"/api/availability?tz=Local", 400, "time zone"},
		{"/api/availability?step=7m", 400, "15m"},
		{"/api/availability?window=400d&step=1h", 400, "more than 2000 parts"},
		{"/api/availability?by=team", 400, "app, location, service"},
		{"/api/availability?by=service&location=Frankfurt", 400, "by=service"},
		{"/api/availability?location=Mars", 400, "Mars"},
		{"/api/availability?status=sideways", 400, "up, down, unavailable"},
		{"/api/availability?label.team=x", 400, "label"},
		{"/api/availability?window=1h&window=2h", 400, "2 times"},
		{"/api/availability?bogus=1", 400, "accepted query parameters"},
		{"/api/apps/nosuch/outages", 404, "nosuch"},
		{"/api/locations/nosuch/outages", 404, "nosuch"},
		{"/api/services/nosuch/outages", 404, "nosuch"},
		{"/api/apps/checkout/outages?from=yesterday", 400, "RFC 3339"},
		{"/api/apps/checkout/outages?from=" + url.QueryEscape(ts(t0.Add(time.Hour))) + "&to=" + url.QueryEscape(ts(t0)), 400, "before"},
		{"/api/apps/checkout/outages?from=2020-01-01T00:00:00Z", 400, "retention"},
		{"/api/apps/checkout/outages?since=1", 400, "accepted query parameters: from, to"},
		{"/api/locations/Frankfurt/outages?to=2026-11-25", 400, "RFC 3339"},
		{"/api/locations/Frankfurt/outages?from=" + url.QueryEscape(ts(t0)) + "&from=" + url.QueryEscape(ts(t0)), 400, "2 times"},
		{"/api/apps/checkout/outages?from=%zz", 400, "invalid"},
	} {
		code, body := get(t, tm.h, tt.target)
		if code != tt.status {
			t.Errorf("GET %s = %d, want %d: %v", tt.target, code, tt.status, body)
			continue
		}
		e := body["error"].(obj)
		text := fmt.Sprint(e["message"], e["details"])
		wantCode := "VALIDATION_ERROR"
		if tt.status == 404 {
			wantCode = "NOT_FOUND"
		}
		if e["code"] != wantCode || !strings.Contains(text, tt.detail) {
			t.Errorf("GET %s: %v %s, want %s mentioning %q", tt.target, e["code"], text, wantCode, tt.detail)
		}
	}
}

// No query string makes the handler fail or panic: every answer is 200 or
// a 400 in the error envelope.
func FuzzAvailabilityQuery(f *testing.F) {
	for _, q := range []string{"window=1h", "period=2026-W47&tz=Europe/Berlin&step=1d", "by=location&status=up", "label.team=a&step=15m",
		"period=2026&step=1w", "window=1h30m&by=service", "tz=Asia/Kathmandu&step=1h&window=2d", "%zz", "window=&step="} {
		f.Add(q)
	}
	tm := newTestMonitor(f, func(o *Options) {
		o.Apps[0].Labels = map[string]string{"team": "a"}
	})
	for range 3 {
		tm.scrape(f)
		tm.clock.Advance(30 * time.Second)
	}
	f.Fuzz(func(t *testing.T, q string) {
		rec := do(t, tm.h, http.MethodGet, "/api/availability?"+url.PathEscape(q), "", nil)
		if rec.Code != http.StatusOK && rec.Code != http.StatusBadRequest {
			t.Fatalf("GET /api/availability?%s = %d %s", q, rec.Code, rec.Body)
		}
		if body := decode(t, rec.Body.Bytes()); rec.Code == http.StatusBadRequest && body["error"].(obj)["code"] != "VALIDATION_ERROR" {
			t.Fatalf("GET /api/availability?%s: %v", q, body)
		}
	})
}

// No from or to makes the outages endpoints fail or panic: every answer
// is 200 with outages inside what was asked, or a 400 in the error
// envelope.
func FuzzOutagesRange(f *testing.F) {
	for _, q := range []string{"", "from=2026-11-25T00:00:00Z", "from=2026-11-25T00:00:00Z&to=2026-11-25T01:00:00%2B01:00",
		"to=2026-11-25T10:00:00.123456789Z", "from=yesterday", "from=2026-11-25T00:00:00Z&from=2026-11-25T00:00:00Z", "%zz", "to=9999-12-31T23:59:59Z"} {
		f.Add(q)
	}
	tm := liveLedgerMonitor(f)
	f.Fuzz(func(t *testing.T, q string) {
		for _, path := range []string{"/api/apps/checkout/outages", "/api/locations/Tel%20Aviv/outages"} {
			rec := do(t, tm.h, http.MethodGet, path+"?"+url.PathEscape(q), "", nil)
			if rec.Code != http.StatusOK && rec.Code != http.StatusBadRequest {
				t.Fatalf("GET %s?%s = %d %s", path, q, rec.Code, rec.Body)
			}
			body := decode(t, rec.Body.Bytes())
			if rec.Code == http.StatusBadRequest && body["error"].(obj)["code"] != "VALIDATION_ERROR" {
				t.Fatalf("GET %s?%s: %v", path, q, body)
			}
			if rec.Code == http.StatusOK {
				d := body["data"].(obj)
				from, err1 := time.Parse(time.RFC3339Nano, d["from"].(string))
				to, err2 := time.Parse(time.RFC3339Nano, d["to"].(string))
				if err1 != nil || err2 != nil || to.Before(from) || to.After(tm.clock.Now()) {
					t.Fatalf("GET %s?%s: range %v to %v (now %s)", path, q, d["from"], d["to"], tm.clock.Now())
				}
			}
		}
	})
}

// An app that leaves the configuration keeps its record, marked removed;
// back under its name it goes on with it, the time between unknown.
func TestAvailabilityRemovedAndBack(t *testing.T) {
	tm := newTestMonitor(t)
	opts := func(apps []App) Options {
		return Options{Locations: []Location{telAviv, frankfurt}, Apps: apps,
			Backends: []Backend{{Name: "main", URL: testPromURL, Source: tm.src, BatchSize: 10}}, Clock: tm.clock}
	}
	all := []App{
		{Name: "checkout", Location: "Tel Aviv", Metric: `up{job="checkout"}`},
		{Name: "search", Location: "Tel Aviv", Metric: `up{job="search"}`},
		{Name: "billing", Location: "Frankfurt", Metric: `up{job="billing"}`},
	}
	cycles := func(n int) {
		for range n {
			for _, a := range all {
				tm.src.Set(a.Name, StatusUp, 0)
			}
			tm.scrape(t)
			tm.clock.Advance(30 * time.Second)
		}
	}
	cycles(20) // [0, 10m)
	if _, err := tm.Reconfigure(opts(all[:2])); err != nil {
		t.Fatal(err)
	}
	cycles(20) // [10m, 20m): billing removed
	_, apps := items(t, tm, "window=1h")
	if b := apps["billing"]; b == nil || b["removed"] != true || b["up_seconds"] != 600.0 || b["location"] != "Frankfurt" {
		t.Errorf("billing removed: %v", b)
	}
	if _, apps := items(t, tm, "window=1h&location=Frankfurt"); len(apps) != 1 || apps["billing"] == nil {
		t.Errorf("by location, the removed app is listed: %v", apps)
	}
	if code, body := get(t, tm.h, "/api/apps/billing/outages"); code != http.StatusOK || body["data"].(obj)["removed"] != true {
		t.Errorf("a removed app's outages: %d %v", code, body)
	}
	if _, err := tm.Reconfigure(opts(all)); err != nil {
		t.Fatal(err)
	}
	cycles(20) // [20m, 29.5m]: the snapshot is of the cycle at 29.5m
	_, apps = items(t, tm, "window=1h")
	if b := apps["billing"]; b["removed"] != false || b["up_seconds"] != 1170.0 {
		t.Errorf("billing back: %v", b)
	}
}

// A restart through the Store keeps the ledger: the same figures after as
// before.
func TestAvailabilityAcrossRestart(t *testing.T) {
	clock := newFakeClock(t0)
	st := &memStore{}
	before := newStoreMonitor(t, st, clock, func(o *Options) {
		o.Maintenance = []MaintenanceWindow{{App: "billing", From: t0.Add(time.Minute), To: t0.Add(3 * time.Minute)}}
	})
	runCycles(t, before, 7)
	clock.Set(clock.Now().Add(-time.Minute)) // to the last cycle: the snapshots of both are of then
	if err := before.save(t.Context()); err != nil {
		t.Fatal(err)
	}
	after := newStoreMonitor(t, st, clock, func(o *Options) {
		o.Maintenance = []MaintenanceWindow{{App: "billing", From: t0.Add(time.Minute), To: t0.Add(3 * time.Minute)}}
	})
	for _, q := range []string{"window=1h", "window=1h&by=location", "window=1h&step=1h"} {
		b, a := dataOf(t, before, "/api/availability?"+q), dataOf(t, after, "/api/availability?"+q)
		if d := cmp.Diff(b, a); d != "" {
			t.Errorf("%s after the restart (-before +after):\n%s", q, d)
		}
	}
	_, apps := items(t, after, "window=1h")
	if apps["search"]["down_seconds"] != 360.0 || apps["billing"]["maintenance_seconds"] != 120.0 {
		t.Errorf("after the restart: %v", apps)
	}
}

// /api/ws announces the start and the end of an app's and its location's
// outage; a filter on another app leaves them out.
func TestOutageEvents(t *testing.T) {
	tm := newTestMonitor(t)
	step := func(checkout Status) {
		tm.src.Set("checkout", checkout, 0)
		tm.src.Set("search", StatusUp, 0)
		tm.src.Set("billing", StatusDown, 0)
		tm.scrape(t)
		tm.clock.Advance(30 * time.Second)
	}
	step(StatusUp)
	next, _ := pull(t, t.Context(), tm.Monitor, EventFilter{Locations: []string{"Tel Aviv"}})
	for range 2 { // the state of checkout and search: the subscription has begun
		if _, err := next(); err != nil {
			t.Fatal(err)
		}
	}
	step(StatusDown)
	step(StatusDown)
	step(StatusUp)
	var got []string
	for len(got) < 4 {
		ev, err := next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Outage == nil {
			continue
		}
		end := "..."
		if !ev.Outage.End.IsZero() {
			end = ev.Outage.End.Sub(t0).String()
		}
		got = append(got, fmt.Sprintf("%s %s %s %s-%s", ev.Type, ev.Outage.Kind, ev.Outage.Name, ev.Outage.Start.Sub(t0), end))
		msg := string(eventMessage(ev))
		if ev.Type == EventOutageEnd && ev.Outage.Kind == "location" &&
			msg != `{"type":"outage_end","timestamp":"2026-11-22T12:01:30.000Z","data":{"kind":"location","name":"Tel Aviv","start":"2026-11-22T12:00:30.000Z","end":"2026-11-22T12:01:30.000Z","duration_seconds":60,"extent":"partial"}}` {
			t.Errorf("message: %s", msg)
		}
	}
	want := []string{
		"outage_start app checkout 30s-...",
		"outage_start location Tel Aviv 30s-...",
		"outage_end app checkout 30s-1m30s",
		"outage_end location Tel Aviv 30s-1m30s",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
}

// uptime_24h, counted over checks, agrees with the availability of the
// 24h window within the weight of one check when the interval is constant.
func TestUptime24hAgreesWithAvailability(t *testing.T) {
	tm := newTestMonitor(t)
	seed := uint64(7)
	n := 1500 // 12.5 hours of 30 s cycles
	for k := range n {
		seed = seed*6364136223846793005 + 1442695040888963407
		st := StatusUp
		if seed>>60 < 3 {
			st = StatusDown
		}
		tm.src.Set("checkout", st, time.Millisecond)
		tm.src.Set("search", StatusUp, time.Millisecond)
		tm.src.Set("billing", StatusUp, time.Millisecond)
		tm.scrape(t)
		if k < n-1 {
			tm.clock.Advance(30 * time.Second)
		}
	}
	var uptime float64
	for _, a := range dataOf(t, tm, "/api/metrics/summary").(obj)["apps_summary"].([]any) {
		if a.(obj)["name"] == "checkout" {
			uptime = a.(obj)["uptime_24h"].(float64)
		}
	}
	_, apps := items(t, tm, "window=24h")
	avail := apps["checkout"]["availability"].(float64)
	if uptime == 100 || uptime < 50 {
		t.Fatalf("the fixture: uptime_24h %v", uptime)
	}
	// One check's weight, and the rounding of uptime_24h to two decimals.
	if d := math.Abs(avail - uptime); d > 100.0/float64(n)+0.005 {
		t.Errorf("availability %v, uptime_24h %v: %v apart, more than a check's weight %v", avail, uptime, d, 100.0/float64(n))
	}
}
