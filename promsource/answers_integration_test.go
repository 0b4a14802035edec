package promsource_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
	"github.com/availmon/availmon/promsource"
)

// Answers in shapes a sound Prometheus does not send, or broken, give the
// states and errors client_golang's decoding gives: the lean decoder of the
// planned queries leaves what it does not read to client_golang. Three
// fused apps, one query: x1 1, x2 0, x3 without a series.
func TestPrometheusOddAnswers(t *testing.T) {
	t.Parallel()
	rig := availtest.NewFaultRig(t)
	apps := []availmon.App{
		{Name: "x1", Metric: `demo_up{app="x1"}`},
		{Name: "x2", Metric: `demo_up{app="x2"}`},
		{Name: "x3", Metric: `demo_up{app="x3"}`},
	}
	var srcLog promtest.SyncBuffer
	rm := rig.Monitor(availtest.MonitorSetup{Apps: apps, BatchSize: promsource.BatchSize,
		Source: promsource.Options{Logger: slog.New(slog.NewTextHandler(&srcLog, nil))}})
	series := func(sample string) string {
		return `{"metric":{"__name__":"demo_up","app":"x1"},` + sample + `},{"metric":{"app":"x2"},"value":[1700000000.5,"0"]}`
	}
	vector := func(result string) string {
		return `{"status":"success","data":{"resultType":"vector","result":[` + result + `]}}`
	}
	const upDown = "up down unavailable"
	for _, tt := range []struct {
		name, body string
		want       string // the states of x1, x2, x3
		err        string // in every app's error when all are unavailable
		warned     bool
	}{
		{name: "canonical", body: vector(series(`"value":[1700000000.5,"1"]`)), want: upDown},
		{name: "victoriametrics extras", want: upDown,
			body: `{"status":"success","isPartial":false,"data":{"resultType":"vector","result":[` + series(`"value":[1700000000,"1"]`) + `]},"stats":{"seriesFetched":"2"}}`},
		{name: "result before resultType", want: upDown,
			body: `{"status":"success","data":{"result":[` + series(`"value":[1,"1"]`) + `],"resultType":"vector"}}`},
		{name: "keys in another case", want: upDown,
			body: `{"Status":"success","DATA":{"resultType":"vector","result":[` + series(`"Value":[1,"1"]`) + `]}}`},
		{name: "several series, one 0", want: "down down unavailable",
			body: vector(series(`"value":[1,"1"]`) + `,{"metric":{"app":"x1","instance":"2"},"value":[1,"0"]}`)},
		{name: "NaN", want: "unavailable down unavailable", body: vector(series(`"value":[1,"NaN"]`))},
		{name: "+Inf", want: upDown, body: vector(series(`"value":[1,"+Inf"]`))},
		{name: "warnings", want: upDown, warned: true,
			body: `{"status":"success","data":{"resultType":"vector","result":[` + series(`"value":[1,"1"]`) + `]},"warnings":["partial answer"]}`},
		{name: "null sample", want: "unavailable unavailable unavailable", err: "null sample",
			body: vector(`null,` + series(`"value":[1,"1"]`))},
		{name: "cut short", want: "unavailable unavailable unavailable", err: "unexpected end of JSON input",
			body: vector(series(`"value":[1,"1"]`))[:60]},
		{name: "value not a string", want: "unavailable unavailable unavailable", err: "sample value must be a quoted string",
			body: vector(series(`"value":[1,1]`))},
		{name: "wrong result type", want: "unavailable unavailable unavailable", err: `unexpected value type "string"`,
			body: `{"status":"success","data":{"resultType":"string","result":[1,"x"]}}`},
		{name: "error envelope with 200", want: "unavailable unavailable unavailable", err: "error type",
			body: `{"status":"error","errorType":"internal","error":"broken"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			logBefore := len(srcLog.String())
			rig.Proxy.Inject(promtest.Rule{Fault: promtest.Answer(tt.name, tt.body)})
			defer rig.Proxy.Clear()
			if n := rm.Cycle(); n < 1 {
				t.Fatalf("%d requests", n)
			}
			states := rm.API.AppStates()
			if got := fmt.Sprintf("%s %s %s", states["x1"], states["x2"], states["x3"]); got != tt.want {
				t.Errorf("states %q, want %q", got, tt.want)
			}
			if tt.err != "" {
				for _, a := range apps {
					e := rm.API.App(a.Name).Error
					if !strings.Contains(e, tt.err) || strings.Contains(e, "panic") {
						t.Errorf("app %s: error %q, want it to say %q", a.Name, e, tt.err)
					}
				}
			}
			logged := srcLog.String()[logBefore:]
			if warned := strings.Contains(logged, "prometheus returned warnings"); warned != tt.warned {
				t.Errorf("warnings logged %v, want %v:\n%s", warned, tt.warned, logged)
			}
			rm.CheckErrors(tt.name)
		})
	}
	// Discovery's queries, decoded by client_golang in full, refuse a
	// null sample too.
	src, err := promsource.New(promsource.Options{Name: "main", URL: rig.Proxy.URL()})
	if err != nil {
		t.Fatal(err)
	}
	rig.Proxy.Inject(promtest.Rule{Fault: promtest.Answer("null", vector(`null`))})
	if _, _, err := src.Instant(t.Context(), `demo_up`); err == nil || !strings.Contains(err.Error(), "null sample") {
		t.Errorf("Instant of an answer with a null sample: err %v", err)
	}
	rig.Proxy.Clear()

	// And the real Prometheus behind the proxy again.
	rm.Cycle()
	if diff := cmp.Diff(map[string]string{"x1": "unavailable", "x2": "unavailable", "x3": "unavailable"}, rm.API.AppStates()); diff != "" {
		t.Errorf("real answer (-want +got):\n%s", diff)
	}
}
