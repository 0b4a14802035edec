package promsource

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/availmon/availmon"
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
