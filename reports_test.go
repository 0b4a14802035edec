package availmon

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// reportMonitor records October 2026 in Berlin and a day past it, a cycle
// an hour: checkout is down for three hours on the 25th and two on the
// 27th, billing is down for an hour on the 3rd and leaves the
// configuration on the 10th (its location, Frankfurt, with it), and the
// service "shop" (checkout and search) follows them.
func reportMonitor(t *testing.T) *testMonitor {
	t.Helper()
	tm, _ := reportMonitorOpts(t)
	return tm
}

// reportMonitorOpts is reportMonitor and the Options it has last been
// given.
func reportMonitorOpts(t *testing.T) (*testMonitor, Options) {
	t.Helper()
	start := time.Date(2026, 9, 30, 22, 0, 0, 0, time.UTC)
	var opts Options
	tm := newTestMonitor(t, func(o *Options) {
		o.Interval = time.Hour
		o.Services = []Service{{Name: "shop", Selector: map[string]string{"tier": "shop"}}}
		o.Apps[0].Labels = map[string]string{"tier": "shop"}
		o.Apps[1].Labels = map[string]string{"tier": "shop"}
		opts = *o
	})
	down := func(at time.Time, from time.Time, hours int) bool {
		return !at.Before(from) && at.Before(from.Add(time.Duration(hours)*time.Hour))
	}
	removed := false
	for at := start; !at.After(time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)); at = at.Add(time.Hour) {
		tm.clock.Set(at)
		if !removed && !at.Before(time.Date(2026, 10, 10, 0, 0, 0, 0, time.UTC)) {
			opts.Apps, opts.Locations = opts.Apps[:2], opts.Locations[:1]
			if _, err := tm.Reconfigure(opts); err != nil {
				t.Fatal(err)
			}
			removed = true
		}
		for _, name := range []string{"checkout", "search", "billing"} {
			st := StatusUp
			if name == "checkout" && (down(at, time.Date(2026, 10, 25, 3, 0, 0, 0, time.UTC), 3) || down(at, time.Date(2026, 10, 27, 9, 0, 0, 0, time.UTC), 2)) ||
				name == "billing" && down(at, time.Date(2026, 10, 3, 0, 0, 0, 0, time.UTC), 1) {
				st = StatusDown
			}
			tm.src.Set(name, st, 0)
		}
		tm.scrape(t)
	}
	return tm, opts
}

// reportRows returns the rows of a report by kind and name.
func reportRows(t *testing.T, tm *testMonitor, target string) (obj, map[string]obj) {
	t.Helper()
	code, body := get(t, tm.h, target)
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d %v", target, code, body)
	}
	data := body["data"].(obj)
	rows := make(map[string]obj)
	for _, it := range data["items"].([]any) {
		r := it.(obj)
		rows[r["kind"].(string)+"/"+r["name"].(string)] = r
	}
	if n := body["meta"].(obj)["count"]; n != float64(len(rows)) {
		t.Errorf("meta.count %v, %d rows", n, len(rows))
	}
	return data, rows
}

// Every row of the report has the figures /api/availability gives for the
// same period, zone and entity.
func TestReportEqualsAvailability(t *testing.T) {
	tm := reportMonitor(t)
	for _, tz := range []string{"UTC", "Europe/Berlin", "America/New_York"} {
		for _, per := range []string{"2026-10", "2026-W43", "2026-Q4", "2026-10-25", "2026"} {
			t.Run(tz+"/"+per, func(t *testing.T) {
				data, rows := reportRows(t, tm, "/api/reports/"+per+"?tz="+url.QueryEscape(tz))
				if data["period"] != per || data["time_zone"] != tz {
					t.Errorf("data: %v", data)
				}
				n := 0
				for _, kind := range []string{"service", "location", "app"} {
					_, avail := items(t, tm, "period="+per+"&by="+kind+"&tz="+url.QueryEscape(tz))
					for name, a := range avail {
						r, ok := rows[kind+"/"+name]
						if !ok {
							continue // removed before the period
						}
						n++
						for _, f := range []string{"up_seconds", "down_seconds", "unknown_seconds", "maintenance_seconds",
							"downtime_seconds", "outages", "availability", "coverage", "removed", "approximate", "location", "apps"} {
							if fmt.Sprint(r[f]) != fmt.Sprint(a[f]) {
								t.Errorf("%s %s: %s report %v, /api/availability %v", kind, name, f, r[f], a[f])
							}
						}
					}
				}
				if n != len(rows) {
					t.Errorf("%d report rows, %d matched rows of /api/availability", len(rows), n)
				}
			})
		}
	}
}

// The outages' figures of October in UTC, worked out by hand from
// reportMonitor's comment; billing and Frankfurt are listed and marked
// removed.
func TestReportOutages(t *testing.T) {
	tm := reportMonitor(t)
	data, rows := reportRows(t, tm, "/api/reports/2026-10?tz=UTC")
	if data["complete"] != true || data["from"] != "2026-10-01T00:00:00.000Z" || data["to"] != "2026-11-01T00:00:00.000Z" {
		t.Errorf("data: %v", data)
	}
	for _, tt := range []struct {
		row                          string
		outages, recovered           float64
		longest, mttr, down, removed any
	}{
		{"app/checkout", 2, 2, 3 * 3600.0, 2.5 * 3600, 5 * 3600.0, false},
		{"app/billing", 1, 1, 3600.0, 3600.0, 3600.0, true},
		{"app/search", 0, 0, 0.0, nil, 0.0, false},
		{"location/Frankfurt", 1, 1, 3600.0, 3600.0, 3600.0, true},
	} {
		r := rows[tt.row]
		if r == nil {
			t.Errorf("%s: not in the report", tt.row)
			continue
		}
		if r["outages"] != tt.outages || r["recovered"] != tt.recovered || r["longest_outage_seconds"] != tt.longest ||
			r["mttr_seconds"] != tt.mttr || r["downtime_seconds"] != tt.down || r["removed"] != tt.removed {
			t.Errorf("%s: %v", tt.row, r)
		}
	}
	if r := rows["app/billing"]; r["removed_at"] != "2026-10-10T00:00:00.000Z" {
		t.Errorf("billing removed at %v", r["removed_at"])
	}
	// November's report, begun after billing left, does not list it.
	if _, rows := reportRows(t, tm, "/api/reports/2026-11?tz=UTC"); rows["app/billing"] != nil || rows["app/checkout"] == nil {
		t.Errorf("November: %v", rows)
	}
}

// The CSV parses with encoding/csv, has the JSON's rows, and its numbers
// read back to the JSON's values.
func TestReportCSV(t *testing.T) {
	tm := reportMonitor(t)
	_, rows := reportRows(t, tm, "/api/reports/2026-10?tz=Europe/Berlin")
	for _, how := range []struct {
		name, target string
		header       http.Header
	}{
		{"format", "/api/reports/2026-10?tz=Europe/Berlin&format=csv", nil},
		{"accept", "/api/reports/2026-10?tz=Europe/Berlin", http.Header{"Accept": {"text/html;q=0.5, text/csv"}}},
	} {
		t.Run(how.name, func(t *testing.T) {
			rec := do(t, tm.h, http.MethodGet, how.target, "", how.header)
			if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/csv") {
				t.Fatalf("GET %s = %d %s", how.target, rec.Code, rec.Header())
			}
			recs, err := csv.NewReader(bytes.NewReader(rec.Body.Bytes())).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(rows)+1 {
				t.Fatalf("%d records, %d rows", len(recs), len(rows))
			}
			col := make(map[string]int)
			for i, h := range recs[0] {
				col[h] = i
			}
			for _, rec := range recs[1:] {
				r := rows[rec[col["kind"]]+"/"+rec[col["name"]]]
				if r == nil || rec[col["period"]] != "2026-10" || rec[col["time_zone"]] != "Europe/Berlin" {
					t.Fatalf("record %v", rec)
				}
				for _, f := range []string{"availability", "coverage", "up_seconds", "down_seconds", "unknown_seconds",
					"maintenance_seconds", "downtime_seconds", "longest_outage_seconds", "outages", "recovered", "mttr_seconds"} {
					checkCell(t, rec[col["name"]], f, rec[col[f]], r[f])
				}
				if rec[col["removed"]] != fmt.Sprint(r["removed"]) || rec[col["approximate"]] != fmt.Sprint(r["approximate"]) {
					t.Errorf("%s: %v, JSON %v", rec[col["name"]], rec, r)
				}
			}
		})
	}
}

// checkCell checks that a CSV cell reads back to the JSON value: a number
// the same float64, null an empty cell.
func checkCell(t *testing.T, name, field, cell string, want any) {
	t.Helper()
	if want == nil {
		if cell != "" {
			t.Errorf("%s %s: %q, want empty", name, field, cell)
		}
		return
	}
	v, err := strconv.ParseFloat(cell, 64)
	if err != nil || v != want.(float64) {
		t.Errorf("%s %s: %q (%v), JSON %v", name, field, cell, err, want)
	}
}

// The report is a cached body: ETag and 304, gzip, Vary.
func TestReportCached(t *testing.T) {
	tm := reportMonitor(t)
	for _, target := range []string{"/api/reports/2026-10", "/api/reports/2026-10?format=csv"} {
		rec := do(t, tm.h, http.MethodGet, target, "", nil)
		etag := rec.Header().Get("ETag")
		if rec.Code != http.StatusOK || etag == "" || !strings.Contains(strings.Join(rec.Header().Values("Vary"), ","), "Accept") {
			t.Fatalf("GET %s = %d %v", target, rec.Code, rec.Header())
		}
		if again := do(t, tm.h, http.MethodGet, target, "", http.Header{"If-None-Match": {etag}}); again.Code != http.StatusNotModified {
			t.Errorf("GET %s with If-None-Match = %d", target, again.Code)
		}
		gz := do(t, tm.h, http.MethodGet, target, "", http.Header{"Accept-Encoding": {"gzip"}})
		if gz.Header().Get("Content-Encoding") != "gzip" || gz.Body.Len() >= rec.Body.Len() {
			t.Errorf("GET %s gzip: %v, %d bytes of %d", target, gz.Header(), gz.Body.Len(), rec.Body.Len())
		}
	}
}

// Bad periods, formats and time zones: 400 VALIDATION_ERROR with the
// allowed forms.
func TestReportBadInput(t *testing.T) {
	tm := newTestMonitor(t)
	tm.scrape(t)
	for _, tt := range []struct{ target, detail string }{
		{"/api/reports/2026-13", "allowed forms: 2026-11-25 (day), 2026-W47 (ISO week), 2026-11 (month), 2026-Q4 (quarter), 2026 (year)"},
		{"/api/reports/november", "allowed forms"},
		{"/api/reports/2026-W54", "W01-W53"},
		{"/api/reports/2099", "has not begun"},
		{"/api/reports/2026-11?format=xml", "allowed formats: json (default), csv, table"},
		{"/api/reports/2026-11?format=table", "terminal"},
		{"/api/reports/2026-11?format=", "format is empty"},
		{"/api/reports/2026-11?tz=Mars/Olympus", "IANA time zone"},
		{"/api/reports/2026-11?tz=Local", "IANA time zone"},
		{"/api/reports/2026-11?tz=UTC&tz=UTC", "2 times"},
		{"/api/reports/2026-11?window=30d", "accepted query parameters: format, tz"},
	} {
		code, body := get(t, tm.h, tt.target)
		if code != http.StatusBadRequest {
			t.Errorf("GET %s = %d: %v", tt.target, code, body)
			continue
		}
		e := body["error"].(obj)
		if text := fmt.Sprint(e["message"], e["details"]); e["code"] != "VALIDATION_ERROR" || !strings.Contains(text, tt.detail) {
			t.Errorf("GET %s: %v %s, want mention of %q", tt.target, e["code"], text, tt.detail)
		}
	}
}

// No period, format or zone makes the handler fail or panic: every answer
// is 200 (JSON or CSV) or a 400 in the error envelope.
func FuzzReportQuery(f *testing.F) {
	for _, s := range [][3]string{{"2026-11", "csv", "Europe/Berlin"}, {"2026-W47", "", ""}, {"2026-Q4", "json", "UTC"},
		{"2026", "table", "Local"}, {"2026-11-25", "xml", "Asia/Kathmandu"}, {"%zz", "", ""}} {
		f.Add(s[0], s[1], s[2])
	}
	tm := newTestMonitor(f)
	for range 3 {
		tm.scrape(f)
		tm.clock.Advance(30 * time.Second)
	}
	f.Fuzz(func(t *testing.T, per, format, tz string) {
		target := "/api/reports/" + url.PathEscape(per) + "?" + url.Values{"format": {format}, "tz": {tz}}.Encode()
		if per == "" {
			return // another route
		}
		rec := do(t, tm.h, http.MethodGet, target, "", nil)
		switch {
		case rec.Code == http.StatusOK && format == "csv":
			if _, err := csv.NewReader(rec.Body).ReadAll(); err != nil {
				t.Fatalf("GET %s: CSV %v", target, err)
			}
		case rec.Code == http.StatusOK:
			decode(t, rec.Body.Bytes())
		case rec.Code == http.StatusBadRequest:
			if body := decode(t, rec.Body.Bytes()); body["error"].(obj)["code"] != "VALIDATION_ERROR" {
				t.Fatalf("GET %s: %v", target, body)
			}
		case rec.Code != http.StatusNotFound || !strings.Contains(per, "/"):
			t.Fatalf("GET %s = %d %s", target, rec.Code, rec.Body)
		}
	})
}
