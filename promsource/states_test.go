package promsource

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/availmon/availmon"
)

// A question of every app of a fused query of thousands of apps over
// weeks of minutes is sent in runs of apps, each within statesSamples on
// each side, so that Prometheus's query.max-samples does not refuse it
// (a refusal costs the server most of the work first); together the runs
// ask every app once.
func TestStatesAsksManyAppsInRuns(t *testing.T) {
	values := regexp.MustCompile(`app=~"([^"]*)"`)
	var mu sync.Mutex
	asked := map[string]int{}
	var sizes []int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			t.Error(err)
		}
		m := values.FindStringSubmatch(r.Form.Get("query"))
		if m == nil {
			t.Errorf("query without the fused selector: %s", r.Form.Get("query"))
		} else {
			apps := strings.Split(m[1], "|")
			mu.Lock()
			sizes = append(sizes, len(apps))
			for _, a := range apps {
				asked[a]++
			}
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
	}))
	defer srv.Close()
	src, err := New(Options{Name: "main", URL: srv.URL, QueryTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var apps []availmon.App
	for i := range 2000 {
		apps = append(apps, availmon.App{Name: fmt.Sprint(i), Metric: fmt.Sprintf(`app_up{app="app-%04d"}`, i)})
	}
	plan := src.PlanPast(apps)
	if len(plan) != 1 {
		t.Fatalf("%d planned queries, want the 2000 apps fused in one", len(plan))
	}
	day := 24 * time.Hour
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const steps = 69
	r := availmon.PastRange{Start: start, End: start.Add((steps - 1) * day), Step: day, Window: day, Resolution: time.Minute}
	if err := plan[0].(availmon.PastStater).States(context.Background(), r, func(availmon.PastState) {}); err != nil {
		t.Fatal(err)
	}
	for _, n := range sizes {
		if n*steps*1440 > statesSamples {
			t.Errorf("a request of %d apps over %d days of minutes: %d app-instants, more than %d", n, steps, n*steps*1440, statesSamples)
		}
	}
	if len(asked) != 2000 {
		t.Errorf("%d apps asked, want 2000", len(asked))
	}
	for a, n := range asked {
		if n != 1 {
			t.Errorf("app %s asked %d times", a, n)
		}
	}
}

// A question the backend refuses for its samples is not asked again
// grouped, which reads as many: it is asked in parts instead.
func TestStatesRefusedAsLargeNotAskedGrouped(t *testing.T) {
	var mu sync.Mutex
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			t.Error(err)
		}
		mu.Lock()
		queries = append(queries, r.Form.Get("query"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		fmt.Fprint(w, `{"status":"error","errorType":"execution","error":"query processing would load too many samples into memory in query execution"}`)
	}))
	defer srv.Close()
	src, err := New(Options{Name: "main", URL: srv.URL, QueryTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	apps := []availmon.App{{Name: "a", Metric: `up{app="a"}`}, {Name: "b", Metric: `up{app="b"}`}}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := availmon.PastRange{Start: start, End: start, Step: 24 * time.Hour, Window: 24 * time.Hour, Resolution: time.Minute}
	if err := src.PlanPast(apps)[0].(availmon.PastStater).States(context.Background(), r, func(availmon.PastState) {}); err != nil {
		t.Fatal(err)
	}
	if len(queries) < 2 {
		t.Errorf("%d questions; want the refused one asked in parts", len(queries))
	}
	for _, q := range queries {
		if strings.Contains(q, "group by") {
			t.Errorf("asked grouped after the refusal: %s", q)
		}
	}
}
