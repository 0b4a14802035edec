package promtest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/availmon/availmon/internal/promtest"
)

// The proxy passes queries to a real Prometheus, answers them with each
// fault as the Prometheus client library reads it, and ends a rule after
// its count or its duration.
func TestFaultProxy(t *testing.T) {
	exp := promtest.NewExporter(t)
	exp.Set("a", 1)
	srv := promtest.Start(t, promtest.Job("demo", exp.Target()))
	srv.WaitForQuery(t, `demo_up{app="a"}`, promtest.SampleEquals(1))
	proxy := promtest.NewFaultProxy(t, srv.URL())
	c, err := api.NewClient(api.Config{Address: proxy.URL()})
	if err != nil {
		t.Fatal(err)
	}
	client := v1.NewAPI(c)
	query := func(q string) (model.Value, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		v, _, _, err := client.Query(ctx, q, time.Now())
		return v, err
	}
	passes := func(step string) {
		t.Helper()
		v, err := query(`demo_up{app="a"}`)
		if err != nil || !promtest.SampleEquals(1)(v) {
			t.Errorf("%s: pass-through query = %v, %v; want one sample of 1", step, v, err)
		}
	}
	passes("no rule")
	if got := proxy.Requests(); got != 1 {
		t.Errorf("Requests() = %d after one query, want 1", got)
	}

	for _, tt := range []struct {
		fault    promtest.Fault
		wantType model.ValueType
		wantErr  v1.ErrorType
	}{
		{fault: promtest.Matrix(), wantType: model.ValMatrix},
		{fault: promtest.Scalar(), wantType: model.ValScalar},
		{fault: promtest.Execution("boom"), wantErr: v1.ErrExec},
		{fault: promtest.VictoriaMetrics422("cannot parse"), wantErr: "422"},
		{fault: promtest.BadData("parse error"), wantErr: v1.ErrBadData},
		{fault: promtest.Status(http.StatusBadGateway), wantErr: v1.ErrServer},
		{fault: promtest.HugeVector(1 << 20), wantType: model.ValVector},
	} {
		t.Run(tt.fault.String(), func(t *testing.T) {
			proxy.Inject(promtest.Rule{Fault: tt.fault, Count: 1})
			before := proxy.Faulted()
			v, err := query(`demo_up`)
			var apiErr *v1.Error
			switch {
			case tt.wantErr != "" && (!errors.As(err, &apiErr) || apiErr.Type != tt.wantErr):
				t.Errorf("error = %v, want type %q", err, tt.wantErr)
			case tt.wantErr == "" && (err != nil || v.Type() != tt.wantType):
				t.Errorf("got %v, %v; want a %s", v, err, tt.wantType)
			}
			if proxy.Faulted() != before+1 {
				t.Errorf("Faulted() went from %d to %d, want one more", before, proxy.Faulted())
			}
			passes("after a rule of Count 1")
		})
	}

	// HugeVector streams a body of the size asked for, valid to the end.
	proxy.Inject(promtest.Rule{Fault: promtest.HugeVector(5 << 20), Count: 1})
	v, err := query(`demo_up`)
	if vec, ok := v.(model.Vector); err != nil || !ok || len(vec) < 5<<20/300 {
		t.Errorf("HugeVector(5 MiB): err %v, %d samples", err, len(vec))
	}

	// Match: only the queries it picks are faulted.
	proxy.Inject(promtest.Rule{Fault: promtest.Matrix(), Match: promtest.QueryContains("app=\"b\"")})
	passes("Match picks another query")
	if v, err := query(`demo_up{app="b"}`); err != nil || v.Type() != model.ValMatrix {
		t.Errorf("matched query: %v, %v; want the matrix fault", v, err)
	}

	// For: the rule ends after its duration.
	proxy.Inject(promtest.Rule{Fault: promtest.Execution("down for a while"), For: 300 * time.Millisecond})
	if _, err := query(`demo_up`); err == nil {
		t.Error("within For: want the fault")
	}
	time.Sleep(400 * time.Millisecond)
	passes("after For")

	// Hang and Trickle hold the request until the client gives up.
	for _, f := range []promtest.Fault{promtest.Hang(), promtest.Trickle(50 * time.Millisecond)} {
		proxy.Inject(promtest.Rule{Fault: f})
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		start := time.Now()
		_, _, _, err := client.Query(ctx, `demo_up`, time.Now())
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: error %v, want the client's deadline", f, err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s: the client waited %s", f, took)
		}
	}
	proxy.Clear()
	passes("after Clear")

	// Range: range queries are faulted, instant ones pass.
	proxy.Inject(promtest.Rule{Fault: promtest.Execution("range down"), Range: true})
	passes("a Range rule")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	r := v1.Range{Start: time.Now().Add(-time.Minute), End: time.Now(), Step: 15 * time.Second}
	var apiErr *v1.Error
	if _, _, _, err := client.QueryRange(ctx, `demo_up`, r); !errors.As(err, &apiErr) || apiErr.Type != v1.ErrExec {
		t.Errorf("range query under a Range rule: %v, want the execution fault", err)
	}
	proxy.Clear()
	if v, _, _, err := client.QueryRange(ctx, `demo_up`, r); err != nil || v.Type() != model.ValMatrix {
		t.Errorf("range query after Clear: %v, %v; want a matrix", v, err)
	}
	cancel()

	// Other paths always pass through.
	proxy.Inject(promtest.Rule{Fault: promtest.Status(http.StatusServiceUnavailable)})
	res, err := http.Get(proxy.URL() + "/-/ready")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "Ready") {
		t.Errorf("/-/ready through the proxy: %s %q", res.Status, body)
	}
}
