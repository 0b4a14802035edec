package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// get GETs url without asking for gzip, which Go's client otherwise asks
// for on its own: a gzip answer costs availmon a compression that the
// figures are not about.
func get(url string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept-Encoding", "identity")
	return http.DefaultClient.Do(req)
}

// lastUpdate is /api/status's last_update: the end of the last cycle.
func lastUpdate(base string) (string, error) {
	res, err := get(base + "/api/status")
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var v struct {
		Data struct {
			LastUpdate string `json:"last_update"`
		} `json:"data"`
	}
	err = json.NewDecoder(res.Body).Decode(&v)
	return v.Data.LastUpdate, err
}

// metricValues reads /metrics and returns the sum of the samples of each
// of names (over all their label sets); a name without samples is absent.
func metricValues(base string, names ...string) (map[string]float64, error) {
	res, err := get(base + "/metrics")
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for _, n := range names {
			rest, ok := strings.CutPrefix(line, n)
			if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '{') {
				continue
			}
			f := strings.Fields(rest[strings.LastIndexByte(rest, '}')+1:])
			if len(f) == 0 {
				continue
			}
			v, err := strconv.ParseFloat(f[0], 64)
			if err != nil {
				return nil, fmt.Errorf("/metrics: %q: %w", line, err)
			}
			out[n] += v
		}
	}
	return out, sc.Err()
}

// backendRequests is how many requests availmon has made to its backends:
// every request is an observation of availmon_scrape_duration_seconds.
func backendRequests(base string) (float64, error) {
	const name = "availmon_scrape_duration_seconds_count"
	v, err := metricValues(base, name)
	if err != nil {
		return 0, err
	}
	if _, ok := v[name]; !ok {
		return 0, fmt.Errorf("no %s on /metrics", name)
	}
	return v[name], nil
}

// The save figures availmon reports for its last successful save.
const (
	saveDuration = "availmon_state_last_save_duration_seconds"
	saveLocked   = "availmon_state_last_save_cycle_lock_seconds"
)

// stateFigures records the state file's size and what the last save took,
// waiting up to wait for a first save to be reported.
func stateFigures(ctx context.Context, base, dir string, wait time.Duration, r *sizeRun) error {
	deadline := time.Now().Add(wait)
	for {
		v, err := metricValues(base, saveDuration, saveLocked)
		if err != nil {
			return err
		}
		if d, ok := v[saveDuration]; ok {
			r.SaveSeconds, r.SaveLocked = d, v[saveLocked]
			break
		}
		if time.Now().After(deadline) {
			fmt.Printf("warning: no state save reported within %s (a binary from before %s?)\n", wait, saveDuration)
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	fi, err := os.Stat(filepath.Join(dir, "data", "availmon.state"))
	if err != nil {
		return fmt.Errorf("the state file: %w", err)
	}
	r.StateBytes = fi.Size()
	return nil
}
