package promsource

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/errtext"
)

func vec(values ...float64) model.Vector {
	out := make(model.Vector, len(values))
	for i, v := range values {
		out[i] = &model.Sample{Value: model.SampleValue(v)}
	}
	return out
}

// The value rulings, without a server: what a set of samples means.
func TestPrometheusResult(t *testing.T) {
	rt := 12 * time.Millisecond
	tests := []struct {
		name       string
		samples    model.Vector
		rtSamples  model.Vector
		wantStatus availmon.Status
		wantRT     time.Duration
		wantErr    string
	}{
		{name: "no sample", wantStatus: availmon.StatusUnavailable, wantRT: rt, wantErr: "no sample"},
		{name: "one up", samples: vec(1), wantStatus: availmon.StatusUp, wantRT: rt},
		{name: "non-zero is up", samples: vec(0.25), wantStatus: availmon.StatusUp, wantRT: rt},
		{name: "negative non-zero is up", samples: vec(-1), wantStatus: availmon.StatusUp, wantRT: rt},
		{name: "zero is down", samples: vec(0), wantStatus: availmon.StatusDown, wantRT: rt},
		{name: "all up", samples: vec(1, 1, 2), wantStatus: availmon.StatusUp, wantRT: rt},
		{name: "one down of several", samples: vec(1, 0, 1), wantStatus: availmon.StatusDown, wantRT: rt},
		{name: "NaN", samples: vec(math.NaN()), wantStatus: availmon.StatusUnavailable, wantRT: rt, wantErr: "sample is NaN"},
		{name: "NaN and up", samples: vec(1, math.NaN()), wantStatus: availmon.StatusUnavailable, wantRT: rt, wantErr: "sample is NaN"},
		{name: "NaN and down", samples: vec(math.NaN(), 0), wantStatus: availmon.StatusDown, wantRT: rt},
		{name: "response time metric", samples: vec(1), rtSamples: vec(0.5), wantStatus: availmon.StatusUp, wantRT: 500 * time.Millisecond},
		{name: "slowest series wins", samples: vec(1), rtSamples: vec(0.1, 2, math.NaN()), wantStatus: availmon.StatusUp, wantRT: 2 * time.Second},
		{name: "NaN response time falls back", samples: vec(1), rtSamples: vec(math.NaN()), wantStatus: availmon.StatusUp, wantRT: rt},
		{name: "negative response time falls back", samples: vec(1), rtSamples: vec(-3), wantStatus: availmon.StatusUp, wantRT: rt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := result(tt.samples, tt.rtSamples, rt)
			gotErr := ""
			if got.Err != nil {
				gotErr = got.Err.Error()
			}
			if diff := cmp.Diff([]any{tt.wantStatus, tt.wantRT, tt.wantErr}, []any{got.Status, got.ResponseTime, gotErr}); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSamplesOf(t *testing.T) {
	got, err := samplesOf(&model.Scalar{Value: 3})
	if err != nil || len(got) != 1 || got[0].Value != 3 {
		t.Errorf("scalar: got %v, %v; want one sample of 3", got, err)
	}
	if _, err := samplesOf(model.Matrix{}); err == nil {
		t.Error("matrix: want an error")
	}
	if _, err := samplesOf(&model.String{Value: "x"}); err == nil {
		t.Error("string: want an error")
	}
}

// Errors are classified by what they mean on each server that speaks the
// Prometheus query API.
func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want errClass
	}{
		{"bad_data", &v1.Error{Type: v1.ErrBadData}, classExpression},
		// Prometheus 2.42's messages for a bad query and a bad timeout.
		{"bad query", &v1.Error{Type: v1.ErrBadData, Msg: `invalid parameter "query": 1:16: parse error: unexpected end of input inside braces`}, classExpression},
		{"bad timeout", &v1.Error{Type: v1.ErrBadData, Msg: `invalid parameter "timeout": cannot parse "9.984872146s" to a valid duration`}, classBackend},
		{"execution", &v1.Error{Type: v1.ErrExec, Msg: "invalid regular expression"}, classEvaluation},
		{"VictoriaMetrics 422", &v1.Error{Type: "422", Msg: `error when executing query="up{" ...: cannot parse`}, classEvaluation},
		{"timeout", &v1.Error{Type: v1.ErrTimeout}, classBackend},
		{"canceled", &v1.Error{Type: v1.ErrCanceled}, classBackend},
		{"internal", &v1.Error{Type: "internal"}, classBackend},
		{"unavailable", &v1.Error{Type: "unavailable"}, classBackend},
		{"not_found", &v1.Error{Type: "not_found"}, classBackend},
		{"Mimir too_many_requests", &v1.Error{Type: "too_many_requests"}, classBackend},
		{"Mimir too_large_entry", &v1.Error{Type: "too_large_entry"}, classBackend},
		{"5xx without a body", &v1.Error{Type: v1.ErrServer, Msg: "server error: 502"}, classBackend},
		{"4xx without a body", &v1.Error{Type: v1.ErrClient, Msg: "client error: 401"}, classBackend},
		{"undecodable answer", &v1.Error{Type: v1.ErrBadResponse}, classBackend},
		{"answer too large", fmt.Errorf("x: %w", ErrResponseTooLarge), classBackend},
		{"connection refused", errors.New("connection refused"), classBackend},
		{"deadline", context.DeadlineExceeded, classBackend},
		{"wrapped bad_data", fmt.Errorf("prometheus x: %w", &v1.Error{Type: v1.ErrBadData}), classExpression},
	} {
		if got := classify(tt.err); got != tt.want {
			t.Errorf("%s: classify(%v) = %d, want %d", tt.name, tt.err, got, tt.want)
		}
	}
}

// A query error that fails the batch never shows the server's message (it
// may quote the combined query) to the apps, only to the log, without the
// query and bounded.
func TestQueryErrorHidesServerMessage(t *testing.T) {
	query := `label_replace((up{job="a"}
), "availmon_app", "0", "", "") or label_replace((up{job="b"}
), "availmon_app", "1", "", "")`
	server := &v1.Error{Type: "422", Msg: fmt.Sprintf("error when executing query=%q: cannot parse %s", query, strings.Repeat("y", 1000))}
	e := newQueryError("main", "a combined query of 2 apps", query, fmt.Errorf("prometheus main: %w", server))
	want := `prometheus main: a combined query of 2 apps failed: error type "422" (the server's message is in availmon's log)`
	if e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
	if d := e.Detail(); strings.Contains(d, "label_replace") || len(d) > errtext.Max || !strings.Contains(d, "query=<query>") {
		t.Errorf("Detail() = %q (%d bytes), want the message without the query, at most %d bytes", d, len(d), errtext.Max)
	}
	if !errors.Is(e, server) {
		t.Error("errors.Is does not find the server's error")
	}
	// The client library's own words are safe to show.
	e = newQueryError("main", "a query", query, &v1.Error{Type: v1.ErrServer, Msg: "server error: 502"})
	if got := e.Error(); got != "prometheus main: a query failed: server error: 502" {
		t.Errorf("5xx: Error() = %q", got)
	}
	// A request sent with GET carries the query in its URL.
	ue := &url.Error{Op: "Get", URL: "http://prom:9090/api/v1/query?query=" + url.QueryEscape(query), Err: errors.New("connection refused")}
	e = newQueryError("main", "a query", query, fmt.Errorf("prometheus main: %w", ue))
	if got := e.Error(); got != `prometheus main: Get "http://prom:9090/api/v1/query": connection refused` {
		t.Errorf("url error: Error() = %q", got)
	}
}

// Verdicts expire after soloVerdictTTL and are not extended while in force.
func TestSoloVerdicts(t *testing.T) {
	v := newSoloVerdicts()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if v.solo(t0, "a") {
		t.Fatal("an unmarked expression is solo")
	}
	if !v.mark(t0, "a") {
		t.Error("first mark is not fresh")
	}
	if v.mark(t0.Add(30*time.Minute), "a") {
		t.Error("a mark within the hour is fresh")
	}
	if !v.solo(t0.Add(soloVerdictTTL-time.Second), "b", "a", "") {
		t.Error("a is not solo within the hour")
	}
	if v.solo(t0.Add(soloVerdictTTL), "a") {
		t.Error("a is still solo after the hour, though marked again at 30m")
	}
	if !v.mark(t0.Add(soloVerdictTTL), "a") {
		t.Error("a mark after expiry is not fresh")
	}
}

// The timeout parameter must be in a form Prometheus parses: no fractions.
func TestServerTimeout(t *testing.T) {
	for _, tt := range []struct {
		in   time.Duration
		want string
	}{
		{9984872146 * time.Nanosecond, "9s"},
		{10 * time.Second, "10s"},
		{90*time.Second + 500*time.Millisecond, "1m30s"},
		{999999 * time.Microsecond, "999ms"},
		{1500 * time.Microsecond, "1ms"},
		{10 * time.Microsecond, "1ms"},
		{-time.Second, "1ms"},
	} {
		if got := serverTimeout(tt.in).String(); got != tt.want {
			t.Errorf("serverTimeout(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
