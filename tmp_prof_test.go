package availmon_test

import (
	"io"
	"net/http"
	"os"
	"sync"
	"testing"
	"fmt"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/promtest"
)

func TestTmpProfile(t *testing.T) {
	exp := promtest.NewExporter(t)
	for i := range manyApps {
		exp.Set(fmtApp(i), 1)
	}
	prom := promtest.Start(t, promtest.Job("demo", exp.Target()))
	backend, _ := promBackend(t, "main", prom)
	locs := []availmon.Location{{Name: "north"}}
	apps := make([]availmon.App, manyApps)
	for i := range apps {
		apps[i] = availmon.App{Name: fmtApp(i), Location: "north", Metric: fmt.Sprintf(`demo_up{app="%s"}`, fmtApp(i))}
	}
	m := newMonitor(t, availmon.Options{Locations: locs, Apps: apps, Backends: []availmon.Backend{backend}, MaxParallel: maxPar()})
	prom.WaitForQuery(t, `count(demo_up)`, promtest.SampleEquals(manyApps))
	scrape(t, m)
	var wg sync.WaitGroup
	wg.Go(func() {
		res, err := http.Get(prom.URL() + "/debug/pprof/profile?seconds=8")
		if err != nil { t.Error(err); return }
		defer res.Body.Close()
		f, _ := os.Create("/tmp/prom.pprof")
		io.Copy(f, res.Body)
		f.Close()
	})
	for range 3 {
		s := time.Now()
		scrape(t, m)
		t.Logf("cycle %s", time.Since(s))
	}
	wg.Wait()
}

func maxPar() int {
	if v := os.Getenv("MAXPAR"); v != "" { var n int; fmt.Sscan(v, &n); return n }
	return 0
}
