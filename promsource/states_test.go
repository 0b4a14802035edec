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
	"github.com/availmon/availmon/internal/promql"
)

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

// The apps each planned query says it tells (PastApps) are those a
// question of every app is answered about, in one request: the queries'
// apps part the planned apps, so the backfill may size such a question by
// them.
func TestPastAppsAreWhatAQuestionAsks(t *testing.T) {
	var mu sync.Mutex
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		mu.Unlock()
		if err := r.ParseForm(); err != nil {
			t.Error(err)
		}
		// Every app present and up at the one step asked: its present side
		// only.
		var series []string
		for _, m := range regexpApps.FindAllStringSubmatch(r.Form.Get("query"), -1) {
			for _, app := range strings.Split(m[1], "|") {
				series = append(series, fmt.Sprintf(`{"metric":{"app":%q,%q:"present"},"values":[[%s,"1440"]]}`,
					app, promql.CountLabel, r.Form.Get("start")))
			}
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"matrix","result":[%s]}}`, strings.Join(series, ","))
	}))
	defer srv.Close()
	src, err := New(Options{Name: "main", URL: srv.URL, QueryTimeout: time.Minute, MaxQueryLength: 400})
	if err != nil {
		t.Fatal(err)
	}
	var apps []availmon.App
	for i := range 60 {
		apps = append(apps, availmon.App{Name: fmt.Sprint(i), Metric: fmt.Sprintf(`up{app="app-%02d"}`, i)})
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := availmon.PastRange{Start: start, End: start, Step: 24 * time.Hour, Window: 24 * time.Hour, Resolution: time.Minute}
	qs := src.PlanPast(apps)
	if len(qs) < 2 {
		t.Fatalf("%d queries; want the apps cut into several by the query length", len(qs))
	}
	seen := map[int]bool{}
	for _, q := range qs {
		scope := q.(availmon.PastScope).PastApps()
		told := map[int]bool{}
		mu.Lock()
		requests = 0
		mu.Unlock()
		if err := q.(availmon.PastStater).States(context.Background(), r, func(st availmon.PastState) { told[st.App] = true }); err != nil {
			t.Fatal(err)
		}
		if requests > 2 { // the two sides, present and down
			t.Errorf("a question of every app took %d requests", requests)
		}
		if len(told) != len(scope) {
			t.Errorf("told of %d apps, PastApps says %d: %v", len(told), len(scope), scope)
		}
		for _, a := range scope {
			if !told[a] || seen[a] {
				t.Errorf("app %d: told %v, in an earlier query %v", a, told[a], seen[a])
			}
			seen[a] = true
		}
	}
	if len(seen) != len(apps) {
		t.Errorf("the queries' apps cover %d apps, want %d", len(seen), len(apps))
	}
}

var regexpApps = regexp.MustCompile(`app=~?"([^"]+)"`)
