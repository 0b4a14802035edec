package availmon

import (
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// newLabelledMonitor is a fleet of eight apps over three locations with
// labels team, env and tier on some of them, and every state present.
func newLabelledMonitor(t testing.TB, opts ...func(*Options)) *testMonitor {
	t.Helper()
	berlin := Location{Name: "Berlin", Latitude: 52.52, Longitude: 13.4}
	apps := []App{
		{Name: "a1", Location: "Tel Aviv", Labels: map[string]string{"team": "a", "env": "prod"}},
		{Name: "a2", Location: "Frankfurt", Labels: map[string]string{"team": "a", "env": "dev"}},
		{Name: "a3", Location: "Berlin", Labels: map[string]string{"team": "a", "env": "prod", "tier": "1"}},
		{Name: "b1", Location: "Tel Aviv", Labels: map[string]string{"team": "b", "env": "prod"}},
		{Name: "b2", Location: "Frankfurt", Labels: map[string]string{"team": "b"}},
		{Name: "b3", Location: "Berlin", Labels: map[string]string{"team": "b", "env": "dev", "tier": "1"}},
		{Name: "x1", Location: "Tel Aviv"},
		{Name: "x2", Location: "Berlin", Labels: map[string]string{"env": "prod"}},
	}
	for i := range apps {
		apps[i].Metric = "up{job=\"" + apps[i].Name + "\"}"
	}
	tm := newTestMonitor(t, append([]func(*Options){func(o *Options) {
		o.Locations = append(o.Locations, berlin)
		o.Apps = apps
	}}, opts...)...)
	states := map[string]Status{"a1": StatusUp, "a2": StatusDown, "a3": StatusUp, "b1": StatusDown,
		"b2": StatusUp, "x2": StatusDown} // b3 and x1 unavailable
	for name, st := range states {
		tm.src.Set(name, st, 0)
	}
	tm.scrape(t)
	return tm
}

// TestAppsFilterBruteForce compares every combination of filters with a
// filter of the whole list done by hand.
func TestAppsFilterBruteForce(t *testing.T) {
	tm := newLabelledMonitor(t)
	_, body := get(t, tm.h, "/api/apps")
	all := body["data"].([]any)
	labelPairs := [][2]string{{"team", "a"}, {"team", "b"}, {"env", "prod"}, {"env", "dev"}, {"tier", "1"}, {"tier", "2"}}
	var labelSets [][][2]string
	labelSets = append(labelSets, nil)
	for i := range labelPairs {
		labelSets = append(labelSets, [][2]string{labelPairs[i]})
		for j := i + 1; j < len(labelPairs); j++ {
			labelSets = append(labelSets, [][2]string{labelPairs[i], labelPairs[j]})
		}
	}
	n := 0
	for _, loc := range []string{"", "Tel Aviv", "Frankfurt", "Berlin"} {
		for _, st := range []string{"", "up", "down", "unavailable"} {
			for _, ls := range labelSets {
				q := url.Values{}
				if loc != "" {
					q.Set("location", loc)
				}
				if st != "" {
					q.Set("status", st)
				}
				for _, p := range ls {
					q.Add("label."+p[0], p[1])
				}
				var want []any
				for _, a := range all {
					app := a.(map[string]any)
					labels, _ := app["labels"].(map[string]any)
					ok := (loc == "" || app["location"] == loc) && (st == "" || app["status"] == st)
					for _, p := range ls {
						ok = ok && labels[p[0]] == p[1]
					}
					if ok {
						want = append(want, a)
					}
				}
				path := "/api/apps?" + q.Encode()
				code, got := get(t, tm.h, path)
				if code != http.StatusOK {
					t.Fatalf("GET %s: %d %v", path, code, got)
				}
				data, _ := got["data"].([]any)
				if diff := cmp.Diff(want, data, cmp.Comparer(func(a, b []any) bool { return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b) })); diff != "" {
					t.Errorf("GET %s (-want +got):\n%s", path, diff)
				}
				if c := got["meta"].(map[string]any)["count"]; c != float64(len(want)) {
					t.Errorf("GET %s: meta.count %v, want %d", path, c, len(want))
				}
				n++
			}
		}
	}
	t.Logf("%d combinations", n)
}

func TestAppsFilterShowsLabels(t *testing.T) {
	tm := newLabelledMonitor(t)
	_, body := get(t, tm.h, "/api/apps?label.tier=1")
	var names []string
	for _, a := range body["data"].([]any) {
		app := a.(map[string]any)
		names = append(names, app["name"].(string))
		if app["labels"].(map[string]any)["tier"] != "1" {
			t.Errorf("app %v: labels %v", app["name"], app["labels"])
		}
	}
	if d := cmp.Diff([]string{"a3", "b3"}, names); d != "" {
		t.Errorf("names (-want +got):\n%s", d)
	}
	// An app without labels has no labels member; the unfiltered list
	// shows them too.
	_, body = get(t, tm.h, "/api/apps")
	for _, a := range body["data"].([]any) {
		app := a.(map[string]any)
		if _, has := app["labels"]; has == (app["name"] == "x1") {
			t.Errorf("app %v: labels member %v", app["name"], app["labels"])
		}
	}
}

func TestAppsFilterBadInput(t *testing.T) {
	tm := newLabelledMonitor(t)
	for _, q := range []string{
		"label.nope=x",
		"label.=x",
		"label.team=",
		"label.team",
		"status=sideways",
		"status=UP",
		"status=up&status=down",
		"location=Mars",
		"location=Berlin&location=Berlin",
		"foo=bar",
		"labels.team=a",
		"location=%zz",
		"label.team=a;b=c",
	} {
		rec := do(t, tm.h, http.MethodGet, "/api/apps?"+q, "", nil)
		body := decode(t, rec.Body.Bytes())
		if rec.Code != http.StatusBadRequest {
			t.Errorf("?%s: status %d, want 400: %s", q, rec.Code, rec.Body)
			continue
		}
		if e := body["error"].(map[string]any); e["code"] != "VALIDATION_ERROR" {
			t.Errorf("?%s: code %v", q, e["code"])
		}
	}
	// A known key with a value no app has is an empty answer, not an error.
	code, body := get(t, tm.h, "/api/apps?label.team=z")
	if code != http.StatusOK || body["meta"].(map[string]any)["count"] != 0.0 || len(body["data"].([]any)) != 0 {
		t.Errorf("?label.team=z: %d %v", code, body)
	}
	code, body = get(t, tm.h, "/api/apps?&")
	if code != http.StatusOK || body["meta"].(map[string]any)["count"] != 8.0 {
		t.Errorf("?&: %d %v", code, body)
	}
}

func TestIntersectSorted(t *testing.T) {
	for _, tt := range []struct{ a, b, want []int }{
		{[]int{1, 2, 3}, []int{2, 3, 4}, []int{2, 3}},
		{[]int{1, 5, 9}, []int{0, 2, 9, 10}, []int{9}},
		{[]int{1}, nil, []int{}},
		{nil, []int{1}, nil},
	} {
		got := intersectSorted(slices.Clone(tt.a), tt.b)
		if !slices.Equal(got, tt.want) {
			t.Errorf("intersect(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// Any query string is a 200 whose apps all pass the filter, or a 400
// VALIDATION_ERROR; never anything else.
func FuzzAppsQuery(f *testing.F) {
	for _, s := range []string{"location=Berlin&status=up", "label.team=a&label.env=prod", "label.tier=1&label.tier=2", "%", "label.=", "status=down&label.team=b"} {
		f.Add(s)
	}
	tm := newLabelledMonitor(f)
	f.Fuzz(func(t *testing.T, q string) {
		rec := do(t, tm.h, http.MethodGet, "/api/apps?"+url.PathEscape(q), "", nil)
		switch rec.Code {
		case http.StatusBadRequest:
			if e, _ := decode(t, rec.Body.Bytes())["error"].(map[string]any); e["code"] != "VALIDATION_ERROR" {
				t.Fatalf("400 with %v", e)
			}
		case http.StatusOK:
			body := decode(t, rec.Body.Bytes())
			data := body["data"].([]any)
			if body["meta"].(map[string]any)["count"] != float64(len(data)) {
				t.Fatalf("count %v for %d apps", body["meta"], len(data))
			}
			parsed, _ := url.ParseQuery(url.PathEscape(q))
			for _, a := range data {
				app := a.(map[string]any)
				if v := parsed.Get("status"); v != "" && app["status"] != v {
					t.Fatalf("?%s gave %v", q, app)
				}
				if v := parsed.Get("location"); v != "" && app["location"] != v {
					t.Fatalf("?%s gave %v", q, app)
				}
			}
		default:
			t.Fatalf("?%s: status %d: %s", q, rec.Code, rec.Body)
		}
	})
}
