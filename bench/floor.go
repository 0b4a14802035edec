package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/availmon/availmon/internal/promql"
	"github.com/availmon/availmon/promsource"
)

// cycleQueries are the queries availmon's cycle sends for the bench's n
// apps, planned as promsource plans them (one expression per app, fused
// and split the same way).
func cycleQueries(n int) ([]string, error) {
	items := make([]*promql.Expr, n)
	for i := range n {
		e, err := promql.Parse(fmt.Sprintf("bench_app_up{app=%q}", appName(i)))
		if err != nil {
			return nil, err
		}
		items[i] = e
	}
	var out []string
	for _, q := range promql.PlanWide(items, promsource.DefaultMaxQueryLength, promsource.BatchSize) {
		out = append(out, q.String())
	}
	return out, nil
}

// backendFloor measures Prometheus alone answering a cycle's queries, all
// at once as a cycle sends them, gzip answers read whole as availmon reads
// them: the wall time and Prometheus's CPU per round, what no change to
// availmon can take a cycle below.
func backendFloor(ctx context.Context, promURL string, promPid, n int, r *sizeRun) error {
	qs, err := cycleQueries(n)
	if err != nil {
		return err
	}
	const rounds = 5
	fmt.Printf("measuring Prometheus alone on a cycle's %d queries (%d rounds)\n", len(qs), rounds)
	round := func() error {
		var wg sync.WaitGroup
		errs := make([]error, len(qs))
		for i, q := range qs {
			wg.Go(func() { errs[i] = askProm(ctx, promURL, q) })
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := round(); err != nil { // connections opened, caches warm
		return err
	}
	cpu0, err := cpuSeconds(promPid)
	if err != nil {
		return err
	}
	began := time.Now()
	for range rounds {
		if err := round(); err != nil {
			return err
		}
	}
	r.BackendWall = time.Since(began).Seconds() / rounds
	cpu1, err := cpuSeconds(promPid)
	if err != nil {
		return err
	}
	r.BackendCPU = (cpu1 - cpu0) / rounds
	r.BackendQueries = len(qs)
	return nil
}

func askProm(ctx context.Context, promURL, query string) error {
	form := url.Values{"query": {query}, "time": {strconv.FormatInt(time.Now().Unix(), 10)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, promURL+"/api/v1/query", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := http.DefaultClient.Do(req) // gzip asked for and read, as availmon's client does
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("prometheus answered %s to a cycle's query", res.Status)
	}
	return nil
}
