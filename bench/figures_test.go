package main

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMetricValues(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		want       map[string]float64
		wantErr    bool
	}{
		{"sums label sets", "# TYPE a_count counter\na_count{backend=\"x\"} 3\na_count{backend=\"y\"} 4.5\nb 1\n",
			map[string]float64{"a_count": 7.5}, false},
		{"a name is not a prefix of another", "a_count_total 9\na_count 2\n", map[string]float64{"a_count": 2}, false},
		{"absent", "b 1\n", map[string]float64{}, false},
		{"unparsable value", "a_count{x=\"1\"} twelve\n", nil, true},
		{"no value", "a_count{x=\"1\"}\n", map[string]float64{}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Accept-Encoding") != "identity" {
					t.Errorf("Accept-Encoding %q, want identity: a gzip answer costs availmon a compression", r.Header.Get("Accept-Encoding"))
				}
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			got, err := metricValues(srv.URL, "a_count")
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want one: %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); !tt.wantErr && diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// The bench asks Prometheus what a cycle asks: the apps' selectors fused
// as promsource plans them.
func TestCycleQueries(t *testing.T) {
	qs, err := cycleQueries(10_000)
	if err != nil {
		t.Fatal(err)
	}
	// Too many for one regular expression: asked wide, as promsource asks.
	if want := []string{"bench_app_up"}; !slices.Equal(qs, want) {
		t.Errorf("queries for 10,000 apps %q, want %q", qs, want)
	}
}
