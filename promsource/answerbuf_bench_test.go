package promsource

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/availmon/availmon"
)

// BenchmarkCheckWideAnswer is one Check of 100,000 apps, each the up
// series of its own job, answered by an in-process server as Prometheus
// answers: chunked, the sample time written with its milliseconds (here
// one answer in two has none, a few bytes a series shorter). It measures
// what availmon's side of a cycle at 100,000 apps allocates and spends in
// promsource, without Prometheus.
func BenchmarkCheckWideAnswer(b *testing.B) {
	apps := jobApps(100_000)
	answers := [2][]byte{wideAnswer(apps, "1700000000.123"), wideAnswer(apps, "1700000000")}
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answers[n.Add(1)%2])
	}))
	b.Cleanup(srv.Close)
	src, err := New(Options{Name: "main", URL: srv.URL})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := src.Check(ctx, apps); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(answers[0])))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := src.Check(ctx, apps); err != nil {
			b.Fatal(err)
		}
	}
}

// wideAnswer is an answer with apps' up series, every other one 0, of
// sample time ts.
func wideAnswer(apps []availmon.App, ts string) []byte {
	var answer strings.Builder
	answer.WriteString(`{"status":"success","data":{"resultType":"vector","result":[`)
	for i, a := range apps {
		if i > 0 {
			answer.WriteByte(',')
		}
		fmt.Fprintf(&answer, `{"metric":{"__name__":"up","job":%q},"value":[%s,"%d"]}`, a.Name, ts, 1-i%2)
	}
	answer.WriteString(`]}}`)
	return []byte(answer.String())
}
