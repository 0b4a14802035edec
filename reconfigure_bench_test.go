package availmon

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// reloadSets are two sets of n apps that differ by one removed, one added
// and one moved app, on the standard fixture's locations and fake source.
func reloadSets(tm *testMonitor, n int) (a, b Options) {
	mk := func(skip, extra string) Options {
		o := Options{Locations: []Location{telAviv, frankfurt},
			Backends: []Backend{{Name: "main", URL: testPromURL, Source: tm.src, BatchSize: 200}}}
		for i := range n {
			name := fmt.Sprintf("app-%05d", i)
			if name == skip {
				continue
			}
			loc := "Tel Aviv"
			if i%2 == 1 || (extra != "" && i == 7) {
				loc = "Frankfurt"
			}
			o.Apps = append(o.Apps, App{Name: name, Location: loc, Metric: "up{app=\"" + name + "\"}"})
		}
		if extra != "" {
			o.Apps = append(o.Apps, App{Name: extra, Location: "Tel Aviv"})
		}
		return o
	}
	return mk("", ""), mk("app-00003", "app-new")
}

func reloadMonitor10k(b *testing.B) (*testMonitor, Options, Options) {
	tm := newTestMonitor(b)
	a, c := reloadSets(tm, 10_000)
	if _, err := tm.Reconfigure(a); err != nil {
		b.Fatal(err)
	}
	for i := range a.Apps {
		tm.src.Set(a.Apps[i].Name, StatusUp, time.Millisecond)
	}
	tm.scrape(b)
	return tm, a, c
}

// BenchmarkReconfigure10k: a reload of 10,000 apps (one added, one removed,
// one moved) through Reconfigure. ns/op is the whole call; locked-ns/op is
// the part that holds the cycle lock, which is the pause a reload adds to
// the cycle (validation and indexing run before it).
func BenchmarkReconfigure10k(b *testing.B) {
	tm, a, c := reloadMonitor10k(b)
	var locked time.Duration
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		o := a
		if i%2 == 0 {
			o = c
		}
		i++
		p, rules, errs := buildPlanAndRules(&o)
		if len(errs) > 0 {
			b.Fatal(errs)
		}
		start := time.Now()
		tm.cycleMu.Lock()
		carryRules(tm.disc.rules, rules, p)
		tm.disc.rules = rules
		tm.applyPlan(p, true)
		tm.cycleMu.Unlock()
		locked += time.Since(start)
	}
	b.ReportMetric(float64(locked.Nanoseconds())/float64(b.N), "locked-ns/op")
}

// BenchmarkRequestsDuringReload10k: GET /api/status and /api/apps/{name}
// while reloads of 10,000 apps run back to back (reload=1) or not
// (reload=0). max-ns and p99-ns are the request latencies: readers take the
// published snapshot and never wait for a reload.
func BenchmarkRequestsDuringReload10k(b *testing.B) {
	for _, reload := range []bool{false, true} {
		b.Run(fmt.Sprintf("reload=%d", map[bool]int{false: 0, true: 1}[reload]), func(b *testing.B) {
			tm, a, c := reloadMonitor10k(b)
			srv := httptest.NewServer(tm.h)
			defer srv.Close()
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			reloads := 0
			if reload {
				wg.Go(func() {
					for i := 0; ctx.Err() == nil; i++ {
						o := a
						if i%2 == 0 {
							o = c
						}
						if _, err := tm.Reconfigure(o); err != nil {
							panic(err)
						}
						reloads++
					}
				})
			}
			client := srv.Client()
			var lat []time.Duration
			for i := 0; b.Loop(); i++ {
				path := "/api/status"
				if i%2 == 1 {
					path = "/api/apps/app-00002"
				}
				start := time.Now()
				resp, err := client.Get(srv.URL + path)
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("%s: %d", path, resp.StatusCode)
				}
				lat = append(lat, time.Since(start))
			}
			cancel()
			wg.Wait()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)-1]), "max-ns")
			b.ReportMetric(float64(lat[len(lat)*99/100]), "p99-ns")
			b.ReportMetric(float64(reloads), "reloads")
		})
	}
}
