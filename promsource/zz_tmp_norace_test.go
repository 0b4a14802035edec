//go:build !race

package promsource

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"
)

func TestZZProfile100k(t *testing.T) {
	const n = 100000
	apps := jobApps(n)
	url, _ := upServer(t, apps, 0)
	src, err := New(Options{Name: "main", URL: url})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	src.exprs.age.now = func() time.Time { return now }
	src.plans.age.now = src.exprs.age.now
	for _, a := range apps {
		src.ValidateApp(a)
	}
	for range 2 {
		if _, err := src.Check(context.Background(), apps); err != nil {
			t.Fatal(err)
		}
	}
	src.PlanPast(apps)
	runtime.GC()
	f, _ := os.Create("/tmp/rsscut/zz.pb.gz")
	pprof.Lookup("heap").WriteTo(f, 0)
	f.Close()
	runtime.KeepAlive(src)
	runtime.KeepAlive(apps)
}
