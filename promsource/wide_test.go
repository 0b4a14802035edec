package promsource_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/promsource"
)

// A wide query that the server fails or refuses while it answers other
// queries (a timeout, a limit on the series a query reads, a duplicate
// match group among series no app asks for) is asked by its parts, in
// that cycle and the next ones: asked again it would fail every cycle. A
// server that answers nothing keeps the wide form, its parts failing too.
func TestWideQueryFailureNarrows(t *testing.T) {
	const n = 300
	apps := make([]availmon.App, n)
	for i := range apps {
		apps[i] = availmon.App{Name: fmt.Sprint(i), Metric: fmt.Sprintf(`x_up{app="app-%d"}`, i)}
	}
	for _, tt := range []struct {
		name      string
		status    int
		errType   string
		allFail   bool // every query fails, the probe too
		wantWide  int64
		wantError bool
	}{
		{name: "timeout", status: http.StatusServiceUnavailable, errType: "timeout", wantWide: 1},
		{name: "refused", status: http.StatusUnprocessableEntity, errType: "execution", wantWide: 1},
		{name: "server down", status: http.StatusServiceUnavailable, errType: "unavailable", allFail: true, wantWide: 3, wantError: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var wide atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if err := r.ParseForm(); err != nil {
					t.Error(err)
				}
				q := r.Form.Get("query")
				w.Header().Set("Content-Type", "application/json")
				isWide := strings.HasPrefix(q, "x_up") && !strings.Contains(q, "=~")
				if isWide {
					wide.Add(1)
				}
				if isWide || tt.allFail {
					w.WriteHeader(tt.status)
					fmt.Fprintf(w, `{"status":"error","errorType":%q,"error":"failed"}`, tt.errType)
					return
				}
				var b strings.Builder
				if q == "vector(1)" {
					b.WriteString(`{"metric":{},"value":[1,"1"]}`)
				}
				for i := range n {
					if v := fmt.Sprintf(`"app-%d"`, i); strings.Contains(q, "app-") && partAsks(q, i) {
						if b.Len() > 0 {
							b.WriteByte(',')
						}
						fmt.Fprintf(&b, `{"metric":{"__name__":"x_up","app":%s},"value":[1,"1"]}`, v)
					}
				}
				fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":[%s]}}`, b.String())
			}))
			t.Cleanup(srv.Close)
			src, err := promsource.New(promsource.Options{Name: "m", URL: srv.URL, MaxQueryLength: 1024})
			if err != nil {
				t.Fatal(err)
			}
			for cycle := range 3 {
				res, err := src.Check(context.Background(), apps)
				if (err != nil) != tt.wantError {
					t.Fatalf("cycle %d: error %v, want an error: %v", cycle, err, tt.wantError)
				}
				if err == nil {
					for i, r := range res {
						if r.Status != availmon.StatusUp {
							t.Fatalf("cycle %d: app %d is %s (%v), want up", cycle, i, r.Status, r.Err)
						}
					}
				}
			}
			if got := wide.Load(); got != tt.wantWide {
				t.Errorf("the wide query was asked %d times in 3 cycles, want %d", got, tt.wantWide)
			}
		})
	}
}

// partAsks reports whether the regular expression of query q lists app i.
func partAsks(q string, i int) bool {
	v := fmt.Sprintf("app-%d", i)
	for _, part := range strings.FieldsFunc(q, func(r rune) bool { return r == '|' || r == '"' || r == '(' || r == ')' }) {
		if part == v {
			return true
		}
	}
	return false
}
