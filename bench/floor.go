package main

import (
	"context"
	"errors"
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
	for _, q := range promql.PlanWide(items, promsource.DefaultMaxQueryLength, promsource.BatchSize, promql.ShardValues) {
		out = append(out, q.String())
	}
	return out, nil
}

// backendFloor measures Prometheus alone answering a cycle's queries, all
// at once as a cycle sends them, the answers read whole and uncompressed as
// availmon reads them (its transport, prometheus/common's, asks for no
// compression): the wall time and Prometheus's CPU per round, what no
// change to availmon can take a cycle below. The same rounds with gzip
// asked for, as Go's default client does, are measured too: what a client
// that took gzip would cost Prometheus.
func backendFloor(ctx context.Context, promURL string, promPid, n int, r *sizeRun) error {
	qs, err := cycleQueries(n)
	if err != nil {
		return err
	}
	fmt.Printf("measuring Prometheus alone on a cycle's %d queries (%d rounds, plain then gzip)\n", len(qs), floorRounds)
	r.BackendQueries = len(qs)
	if r.BackendWall, r.BackendCPU, err = floorMeasure(ctx, promURL, promPid, qs, false); err != nil {
		return err
	}
	r.BackendGzipWall, r.BackendGzipCPU, err = floorMeasure(ctx, promURL, promPid, qs, true)
	return err
}

// floorRounds is how many rounds a floor is the mean of.
const floorRounds = 5

// floorMeasure sends qs at once floorRounds times, after one round that
// opens the connections and warms the caches, and returns the wall time
// and Prometheus's CPU seconds per round.
func floorMeasure(ctx context.Context, promURL string, promPid int, qs []string, gzip bool) (wall, cpu float64, err error) {
	round := func() error {
		var wg sync.WaitGroup
		errs := make([]error, len(qs))
		for i, q := range qs {
			wg.Go(func() { errs[i] = askProm(ctx, promURL, q, gzip) })
		}
		wg.Wait()
		return errors.Join(errs...)
	}
	if err := round(); err != nil {
		return 0, 0, err
	}
	cpu0, err := cpuSeconds(promPid)
	if err != nil {
		return 0, 0, err
	}
	began := time.Now()
	for range floorRounds {
		if err := round(); err != nil {
			return 0, 0, err
		}
	}
	wall = time.Since(began).Seconds() / floorRounds
	cpu1, err := cpuSeconds(promPid)
	if err != nil {
		return 0, 0, err
	}
	return wall, (cpu1 - cpu0) / floorRounds, nil
}

// askProm sends query as availmon does and reads the answer whole; gzip
// asks for a compressed answer, which Go's transport then inflates.
func askProm(ctx context.Context, promURL, query string, gzip bool) error {
	form := url.Values{"query": {query}, "time": {strconv.FormatInt(time.Now().Unix(), 10)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, promURL+"/api/v1/query", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if !gzip {
		// Explicit, or Go's transport would ask for gzip itself.
		req.Header.Set("Accept-Encoding", "identity")
	}
	res, err := http.DefaultClient.Do(req)
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
