package availmon

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// newServiceMonitor has checkout in three locations (two apps in Tel Aviv)
// and search in two.
func newServiceMonitor(t testing.TB, services []Service) *testMonitor {
	t.Helper()
	berlin := Location{Name: "Berlin", Latitude: 52.52, Longitude: 13.4}
	return newTestMonitor(t, func(o *Options) {
		o.Locations = append(o.Locations, berlin)
		o.Apps = []App{
			{Name: "checkout-tlv-1", Location: "Tel Aviv", Metric: "up", Labels: map[string]string{"service": "checkout"}},
			{Name: "checkout-tlv-2", Location: "Tel Aviv", Metric: "up", Labels: map[string]string{"service": "checkout"}},
			{Name: "checkout-fra", Location: "Frankfurt", Metric: "up", Labels: map[string]string{"service": "checkout"}},
			{Name: "checkout-ber", Location: "Berlin", Metric: "up", Labels: map[string]string{"service": "checkout"}},
			{Name: "search-tlv", Location: "Tel Aviv", Metric: "up", Labels: map[string]string{"service": "search", "team": "s"}},
			{Name: "search-fra", Location: "Frankfurt", Metric: "up", Labels: map[string]string{"service": "search", "team": "s"}},
		}
		o.Services = services
	})
}

func TestServiceRollup(t *testing.T) {
	U, D, X := StatusUp, StatusDown, StatusUnavailable
	tests := []struct {
		name     string
		svc      Service
		states   []Status // checkout-tlv-1, -tlv-2, -fra, -ber
		want     string
		locsUp   int
		locState []Status
	}{
		{"all up", Service{Name: "checkout", MinUp: 2}, []Status{U, U, U, U}, ServiceUp, 3, []Status{U, U, U}},
		{"one app of a location down takes the location down", Service{Name: "checkout", MinUp: 2}, []Status{U, D, U, U}, ServiceDegraded, 2, []Status{D, U, U}},
		{"below quorum is down", Service{Name: "checkout", MinUp: 2}, []Status{D, U, D, U}, ServiceDown, 1, []Status{D, D, U}},
		{"unknown locations could meet the quorum", Service{Name: "checkout", MinUp: 2}, []Status{U, X, D, U}, ServiceUnavailable, 1, []Status{X, D, U}},
		{"default quorum is one location", Service{Name: "checkout"}, []Status{D, D, D, U}, ServiceDegraded, 1, []Status{D, D, U}},
		{"percentage rounds up: 50% of 3 is 2", Service{Name: "checkout", MinUpPercent: 50}, []Status{D, D, D, U}, ServiceDown, 1, []Status{D, D, U}},
		{"100% needs every location", Service{Name: "checkout", MinUpPercent: 100}, []Status{U, U, U, D}, ServiceDown, 2, []Status{U, U, D}},
		{"all down", Service{Name: "checkout"}, []Status{D, D, D, D}, ServiceDown, 0, []Status{D, D, D}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tm := newServiceMonitor(t, []Service{tt.svc})
			for i, st := range tt.states {
				tm.src.Set(tm.plan.apps[i].Name, st, 0)
			}
			tm.scrape(t)
			code, body := get(t, tm.h, "/api/services/checkout")
			if code != http.StatusOK {
				t.Fatalf("status %d: %v", code, body)
			}
			d := body["data"].(map[string]any)
			if d["status"] != tt.want || d["locations_up"] != float64(tt.locsUp) || d["locations_total"] != 3.0 || d["apps_count"] != 4.0 {
				t.Errorf("got status %v, locations_up %v of %v, apps %v; want %s, %d of 3, 4", d["status"], d["locations_up"], d["locations_total"], d["apps_count"], tt.want, tt.locsUp)
			}
			var locs []string
			var got []Status
			for _, l := range d["locations"].([]any) {
				lm := l.(map[string]any)
				locs = append(locs, lm["name"].(string))
				got = append(got, Status(lm["status"].(string)))
			}
			if diff := cmp.Diff([]string{"Tel Aviv", "Frankfurt", "Berlin"}, locs); diff != "" {
				t.Errorf("locations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.locState, got); diff != "" {
				t.Errorf("location states (-want +got):\n%s", diff)
			}
			rec := do(t, tm.h, http.MethodGet, "/metrics", "", nil)
			up := map[string]string{ServiceUp: "1", ServiceDegraded: "1", ServiceDown: "0"}[tt.want]
			for _, line := range []string{
				`availmon_service_locations_up{service="checkout"} ` + string(rune('0'+tt.locsUp)),
				`availmon_service_locations{service="checkout"} 3`,
			} {
				if !strings.Contains(rec.Body.String(), line+"\n") {
					t.Errorf("/metrics lacks %s", line)
				}
			}
			hasUp := strings.Contains(rec.Body.String(), `availmon_service_up{service="checkout"} `+up+"\n")
			if up == "" {
				hasUp = !strings.Contains(rec.Body.String(), "availmon_service_up{")
			}
			if !hasUp {
				t.Errorf("/metrics: availmon_service_up wrong for %s", tt.want)
			}
		})
	}
}

func TestServicesList(t *testing.T) {
	tm := newServiceMonitor(t, []Service{{Name: "checkout", MinUp: 2}, {Name: "search-team", Selector: map[string]string{"team": "s"}}})
	for _, a := range tm.plan.apps {
		tm.src.Set(a.Name, StatusUp, 0)
	}
	tm.scrape(t)
	code, body := get(t, tm.h, "/api/services")
	if code != http.StatusOK {
		t.Fatal(code)
	}
	want := []any{
		map[string]any{"name": "checkout", "status": "up", "min_up": 2.0, "locations_up": 3.0, "locations_total": 3.0, "apps_count": 4.0, "selector": map[string]any{"service": "checkout"}},
		map[string]any{"name": "search-team", "status": "up", "min_up": 1.0, "locations_up": 2.0, "locations_total": 2.0, "apps_count": 2.0, "selector": map[string]any{"team": "s"}},
	}
	if d := cmp.Diff(want, body["data"]); d != "" {
		t.Errorf("/api/services (-want +got):\n%s", d)
	}
	if body["meta"].(map[string]any)["count"] != 2.0 {
		t.Errorf("meta %v", body["meta"])
	}
}

func TestServicesBadInput(t *testing.T) {
	tm := newServiceMonitor(t, []Service{{Name: "checkout"}})
	for _, tt := range []struct {
		path string
		code int
		err  string
	}{
		{"/api/services/nope", 404, "NOT_FOUND"},
		{"/api/services/check%2Fout", 404, "NOT_FOUND"},
		{"/api/services?x=1", 400, "VALIDATION_ERROR"},
		{"/api/services/checkout?status=up", 400, "VALIDATION_ERROR"},
	} {
		rec := do(t, tm.h, http.MethodGet, tt.path, "", nil)
		body := decode(t, rec.Body.Bytes())
		if rec.Code != tt.code || body["error"].(map[string]any)["code"] != tt.err {
			t.Errorf("GET %s: %d %v, want %d %s", tt.path, rec.Code, body["error"], tt.code, tt.err)
		}
	}
	rec := do(t, tm.h, http.MethodPost, "/api/services", "{}", nil)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /api/services: %d", rec.Code)
	}
}

func TestServiceOptionsErrors(t *testing.T) {
	for _, tt := range []struct {
		svc  []Service
		want string
	}{
		{[]Service{{Name: ""}}, "service 1 has no name"},
		{[]Service{{Name: "checkout"}, {Name: "checkout"}}, `service "checkout" is listed twice`},
		{[]Service{{Name: "nothing"}}, `service "nothing": no app matches its selector {service="nothing"}`},
		{[]Service{{Name: "checkout", MinUp: 4}}, "MinUp 4 is more than its 3 locations"},
		{[]Service{{Name: "checkout", MinUp: -1}}, "MinUp -1 is negative"},
		{[]Service{{Name: "checkout", MinUp: 1, MinUpPercent: 50}}, "not both"},
		{[]Service{{Name: "checkout", MinUpPercent: 101}}, "outside (0, 100]"},
		{[]Service{{Name: "x", Selector: map[string]string{"a b": "c"}}}, `selector: label "a b"`},
	} {
		berlin := Location{Name: "Berlin"}
		o := Options{Locations: []Location{telAviv, frankfurt, berlin}, Source: newFakeSource(), Services: tt.svc}
		for i, l := range []string{"Tel Aviv", "Frankfurt", "Berlin"} {
			o.Apps = append(o.Apps, App{Name: "c" + string(rune('0'+i)), Location: l, Metric: "up", Labels: map[string]string{"service": "checkout"}})
		}
		if _, err := New(o); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%v): %v, want %q", tt.svc, err, tt.want)
		}
	}
}

func FuzzServicePath(f *testing.F) {
	for _, s := range []string{"checkout", "check%20out", "%zz", "checkout/x", ""} {
		f.Add(s)
	}
	tm := newServiceMonitor(f, []Service{{Name: "checkout"}, {Name: "search"}})
	f.Fuzz(func(t *testing.T, name string) {
		target := "/api/services/" + name
		if strings.ContainsAny(name, " ?#\x00\r\n\t") || !strings.HasPrefix(target, "/") {
			return // not a request line httptest.NewRequest can carry
		}
		defer func() {
			if p := recover(); p != nil {
				return // httptest.NewRequest refuses some targets by panicking
			}
		}()
		req := do(t, tm.h, http.MethodGet, target, "", nil)
		switch req.Code {
		case 200, 400, 404, 405:
		default:
			t.Fatalf("GET %q: %d", target, req.Code)
		}
	})
}

// Reconfigure keeps the services, thresholds and exported labels New was
// given, and resolves them against the new apps.
func TestReconfigureKeepsControls(t *testing.T) {
	tm := newServiceMonitor(t, []Service{{Name: "search"}})
	apps := append([]App(nil), tm.plan.apps...)
	apps = append(apps, App{Name: "search-ber", Location: "Berlin", Metric: "up", Labels: map[string]string{"service": "search"}})
	if _, err := tm.Reconfigure(Options{Apps: apps, Locations: tm.plan.locations, Backends: tm.plan.backends}); err != nil {
		t.Fatal(err)
	}
	for _, a := range apps {
		tm.src.Set(a.Name, StatusUp, 0)
	}
	tm.scrape(t)
	_, body := get(t, tm.h, "/api/services/search")
	if d := body["data"].(map[string]any); d["locations_total"] != 3.0 || d["status"] != "up" {
		t.Errorf("after Reconfigure: %v", d)
	}
	// A set in which the service matches nothing is refused.
	if _, err := tm.Reconfigure(Options{Apps: apps[:4], Locations: tm.plan.locations, Backends: tm.plan.backends}); err == nil {
		t.Error("Reconfigure without any search app: no error")
	}
}
