//go:build !race

package promsource

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon"
)

// A source that checks the same apps cycle after cycle holds their plan
// and little else: a cycle finds its plan by the expressions' texts, so
// the parsed expressions are not also kept in the exprCache's map (about
// 50 bytes an app more) once a cache age has passed without a new plan.
// Heap figures are only meaningful without the race detector.
func TestSourceKeepsLittleBesidesItsPlan(t *testing.T) {
	const n = 20000
	apps := make([]availmon.App, n)
	var answer strings.Builder
	answer.WriteString(`{"status":"success","data":{"resultType":"vector","result":[`)
	for i := range apps {
		name := fmt.Sprintf("app-%05d", i)
		apps[i] = availmon.App{Name: name, Metric: fmt.Sprintf(`up{job=%q}`, name)}
		if i > 0 {
			answer.WriteByte(',')
		}
		fmt.Fprintf(&answer, `{"metric":{"__name__":"up","job":%q},"value":[1700000000,"1"]}`, name)
	}
	answer.WriteString(`]}}`)
	body := []byte(answer.String())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	base := heap()
	src, err := New(Options{Name: "main", URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	src.exprs.age.now = func() time.Time { return now }
	src.plans.age.now = src.exprs.age.now
	for range 4 {
		res, err := src.Check(context.Background(), apps)
		if err != nil {
			t.Fatal(err)
		}
		if res[n-1].Status != availmon.StatusUp {
			t.Fatalf("app %d is %s, want up", n-1, res[n-1].Status)
		}
		now = now.Add(cacheAge + time.Second)
	}
	perApp := float64(heap()-base) / n
	runtime.KeepAlive(src)
	t.Logf("a source checking %d apps holds %.0f bytes an app", n, perApp)
	const limit = 310 // 355 while the exprCache kept every expression a plan holds
	if perApp > limit {
		t.Errorf("a source holds %.0f bytes an app, want at most %d", perApp, limit)
	}
}
