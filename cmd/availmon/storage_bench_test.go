package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/filestore"
	"github.com/availmon/availmon/internal/availtest"
)

// BenchmarkStartupWithState is the real binary's start-up to its first
// answer of /api/apps with a 10,000-app state file (history_size 100,
// every history full), against a start with no state.
func BenchmarkStartupWithState(b *testing.B) {
	const apps, locs = 10_000, 100
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "scrape_interval: 1h\nprometheus:\n  - name: main\n    url: http://%s\nlocations:\n", availtest.ClosedPort(b))
	o := availmon.Options{Interval: time.Hour, Source: availmon.SourceFunc(func(context.Context, availmon.App) availmon.Result {
		return availmon.Result{Status: availmon.StatusUp, ResponseTime: time.Millisecond}
	})}
	for l := range locs {
		name := fmt.Sprintf("location-%03d", l)
		fmt.Fprintf(&cfg, "  - {name: %s, latitude: 0, longitude: 0}\n", name)
		o.Locations = append(o.Locations, availmon.Location{Name: name})
	}
	cfg.WriteString("apps:\n")
	for a := range apps {
		name, loc := fmt.Sprintf("app-%05d", a), fmt.Sprintf("location-%03d", a%locs)
		fmt.Fprintf(&cfg, "  - {name: %s, location: %s, metric: 'up{job=\"%s\"}'}\n", name, loc, name)
		o.Apps = append(o.Apps, availmon.App{Name: name, Location: loc})
	}
	dir := b.TempDir()
	cfgPath := filepath.Join(dir, "availmon.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	stateDir := filepath.Join(dir, "data")
	st, err := filestore.New(filestore.Options{Dir: stateDir})
	if err != nil {
		b.Fatal(err)
	}
	o.Store = st
	m, err := availmon.New(o)
	if err != nil {
		b.Fatal(err)
	}
	for range 100 {
		if err := m.Scrape(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := m.Run(ctx); err != nil { // saves on its way out
		b.Fatal(err)
	}
	fi, err := os.Stat(st.Path())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(fi.Size()), "state-bytes")
	bin := binary(b)
	for _, withState := range []bool{true, false} {
		b.Run(fmt.Sprintf("state=%v", withState), func(b *testing.B) {
			for b.Loop() {
				sd := stateDir
				if !withState {
					sd = b.TempDir()
				}
				start := time.Now()
				p := startStored(b, bin, "-config", cfgPath, "-storage.path", sd)
				for {
					res, err := http.Get(p.base + "/api/apps/app-00042")
					if err == nil {
						res.Body.Close()
						if res.StatusCode == http.StatusOK {
							break
						}
					}
					time.Sleep(time.Millisecond)
				}
				b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms-to-first-answer")
				_ = p.cmd.Process.Signal(syscall.SIGKILL) // a SIGTERM would save the state again
				<-p.logDone
				_ = p.cmd.Wait()
			}
		})
	}
}
