package promsource

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
)

// The form of a query is what v1.API.Query sends: url.Values encoded.
func TestQueryFormIsEncodedValues(t *testing.T) {
	ts := time.Date(2026, 11, 26, 9, 30, 15, 250_000_000, time.UTC)
	deadline, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	tests := []struct {
		name  string
		ctx   context.Context
		query string
	}{
		{"plain, no deadline", context.Background(), `up`},
		{"fused selector", deadline, `demo_up{app=~"app-0|app-1|a\\.b"}`},
		{"spaces, reserved and non-ASCII bytes", deadline, "sum by (app) (rate(x{a=\"é ü/?&=+;,:@$#%\"}[5m])) \t\n~_-."},
		{"empty", deadline, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := queryForm(tt.ctx, tt.query, ts)
			want := url.Values{"query": {tt.query}, "time": {"1795685415.25"}}
			if dl, ok := tt.ctx.Deadline(); ok {
				// The timeout is read from the clock: take it from the form.
				parsed, err := url.ParseQuery(got)
				if err != nil {
					t.Fatal(err)
				}
				d, err := time.ParseDuration(parsed.Get("timeout"))
				if err != nil || d <= 0 || d > time.Until(dl) {
					t.Fatalf("timeout %q (%v), want a duration up to the deadline", parsed.Get("timeout"), err)
				}
				want.Set("timeout", parsed.Get("timeout"))
			}
			if diff := cmp.Diff(want.Encode(), got); diff != "" {
				t.Errorf("form (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzQueryEscape(f *testing.F) {
	for _, s := range []string{"", "up", `a{b=~"c|d"}`, "é \x00\xff%+&=", "1m30s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := url.QueryEscape(s)
		if n := escapedLen(s); n != len(want) {
			t.Errorf("escapedLen(%q) = %d, want %d", s, n, len(want))
		}
		got := queryForm(context.Background(), s, time.Unix(1, 0))
		if wantForm := "query=" + want + "&time=1"; got != wantForm {
			t.Errorf("queryForm(%q) = %q, want %q", s, got, wantForm)
		}
	})
}

// A server (or a proxy) that refuses POST is asked again with GET, the
// same form in the URL, as client_golang's DoGetFallback does.
func TestCheckFallsBackToGET(t *testing.T) {
	for _, code := range []int{http.StatusForbidden, http.StatusMethodNotAllowed, http.StatusNotImplemented} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			var mu sync.Mutex
			var methods []string
			var forms []url.Values
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				methods = append(methods, r.Method)
				mu.Unlock()
				if r.Method == http.MethodPost {
					w.WriteHeader(code)
					return
				}
				if err := r.ParseForm(); err != nil {
					t.Error(err)
				}
				mu.Lock()
				forms = append(forms, r.Form)
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[`+
					`{"metric":{"app":"a"},"value":[1,"1"]},{"metric":{"app":"b"},"value":[1,"0"]}]}}`)
			}))
			defer srv.Close()
			src, err := New(Options{Name: "main", URL: srv.URL, QueryTimeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			apps := []availmon.App{{Name: "a", Metric: `up{app="a"}`}, {Name: "b", Metric: `up{app="b"}`}}
			res, err := src.Check(context.Background(), apps)
			if err != nil {
				t.Fatal(err)
			}
			var got []availmon.Status
			for _, r := range res {
				got = append(got, r.Status)
			}
			if diff := cmp.Diff([]availmon.Status{availmon.StatusUp, availmon.StatusDown}, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{http.MethodPost, http.MethodGet}, methods); diff != "" {
				t.Errorf("methods (-want +got):\n%s", diff)
			}
			if len(forms) != 1 || forms[0].Get("query") != `up{app=~"a|b"}` || forms[0].Get("time") == "" || forms[0].Get("timeout") == "" {
				t.Errorf("GET form %v, want the fused query, its time and timeout", forms)
			}
		})
	}
}
