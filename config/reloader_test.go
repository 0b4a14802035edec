package config

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/availtest"
	"github.com/availmon/availmon/internal/promtest"
)

// writeReloadConfig writes a configuration of two apps whose backends are
// down (availtest.WriteDownConfig).
func writeReloadConfig(t *testing.T) string { return availtest.WriteDownConfig(t, "") }

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// testReloader is a reloader of the file at path for a monitor built from
// it, whose reads go through load.
func testReloader(t *testing.T, path string, load func(string, LookupFunc) (*Config, error)) *Reloader {
	t.Helper()
	return logReloader(t, path, load, io.Discard)
}

// logReloader is testReloader logging to w.
func logReloader(t *testing.T, path string, load func(string, LookupFunc) (*Config, error), w io.Writer) *Reloader {
	t.Helper()
	cfg, err := Load(path, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(w, nil))
	opts, err := cfg.Options(log)
	if err != nil {
		t.Fatal(err)
	}
	m, err := availmon.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReloader(m, ReloaderOptions{Path: path, Lookup: env(nil), Running: cfg, Logger: log, Registerer: prometheus.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	r.load = load
	return r
}

// A read that blocks (a file on a hung mount) fails its reload after the
// read timeout; the reloads after it fail at once, without starting
// another read, until it returns; a reload whose context ends returns
// then. Once the read returns, reloads work again.
func TestReloadBlockedRead(t *testing.T) {
	path := writeReloadConfig(t)
	synctest.Test(t, func(t *testing.T) {
		unblock := make(chan struct{})
		var reads atomic.Int32 // the test reads it while the read is blocked
		r := testReloader(t, path, func(p string, l LookupFunc) (*Config, error) {
			reads.Add(1)
			<-unblock
			return Load(p, l)
		})
		if _, err := r.Reload(t.Context()); err == nil || !strings.Contains(err.Error(), "did not finish within 10s") {
			t.Errorf("reload of a blocked read: %v", err)
		}
		if _, err := r.Reload(t.Context()); err == nil || !strings.Contains(err.Error(), "an earlier read of the file has not returned") {
			t.Errorf("reload while the read is still blocked: %v", err)
		}
		if n := reads.Load(); n != 1 {
			t.Errorf("%d reads started, want 1: a read that hangs must not pile up more", n)
		}
		close(unblock)
		synctest.Wait()
		if ch, err := r.Reload(t.Context()); err != nil || ch.Apps != 2 {
			t.Errorf("reload after the read returned = %+v, %v", ch, err)
		}

		unblock = make(chan struct{})
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		if _, err := r.Reload(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("reload whose context ends during the read: %v, want context.Canceled", err)
		}
		close(unblock)
		synctest.Wait()
	})
}

// Reloads that come together take turns: each reads the file after the
// one before it has applied, so none waits for ever and the last applies
// the newest file.
func TestReloadTurns(t *testing.T) {
	path := writeReloadConfig(t)
	good := readFile(t, path)
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		first := true
		r := testReloader(t, path, func(p string, l LookupFunc) (*Config, error) {
			if first {
				first = false
				<-release
			}
			return Load(p, l)
		})
		done := make(chan availmon.ConfigChange, 1)
		go func() {
			ch, _ := r.Reload(t.Context())
			done <- ch
		}()
		synctest.Wait() // the first reads, blocked
		writeFile(t, path, strings.Replace(good, "apps:\n", "apps:\n  - {name: extra, location: Tel Aviv, metric: 'up'}\n", 1))
		second := make(chan availmon.ConfigChange, 1)
		go func() {
			ch, _ := r.Reload(t.Context())
			second <- ch
		}()
		synctest.Wait() // the second waits for its turn
		close(release)
		if ch := <-done; ch.Apps != 3 {
			t.Errorf("first reload: %d apps", ch.Apps)
		}
		if ch := <-second; ch.Apps != 3 {
			t.Errorf("second reload: %d apps", ch.Apps)
		}
	})
}

// A reload that changes only scrape_interval, in a file without
// scrape_timeout, needs no restart and warns of none: the monitor's
// timeout follows the interval (5s now, from 10s).
func TestReloadIntervalAloneWarnsNothing(t *testing.T) {
	body := readFile(t, writeReloadConfig(t))
	path := filepath.Join(t.TempDir(), "availmon.yaml")
	withInterval := func(iv string) {
		t.Helper()
		b, ok := strings.CutPrefix(body, "scrape_interval: 1s\nscrape_timeout: 500ms\n")
		if !ok {
			t.Fatalf("writeReloadConfig does not start with the interval and timeout:\n%s", body)
		}
		writeFile(t, path, "scrape_interval: "+iv+"\n"+b)
	}
	withInterval("30s")
	var logs promtest.SyncBuffer
	r := logReloader(t, path, Load, &logs)
	withInterval("5s")
	ch, err := r.Reload(t.Context())
	if err != nil || len(ch.RestartNeeded) != 0 {
		t.Errorf("reload = restart_needed %v, %v; want none", ch.RestartNeeded, err)
	}
	if strings.Contains(logs.String(), "restart") {
		t.Errorf("the log warns of a restart:\n%s", logs.String())
	}
	rec := httptest.NewRecorder()
	r.m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/config", nil))
	var cfg struct {
		Data struct {
			ScrapeInterval string `json:"scrape_interval"`
			ScrapeTimeout  string `json:"scrape_timeout"`
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &cfg); err != nil || cfg.Data.ScrapeInterval != "5s" || cfg.Data.ScrapeTimeout != "5s" {
		t.Errorf("/api/config after the reload: %+v, %v; want interval and timeout 5s", cfg.Data, err)
	}
}

// NewReloader needs the monitor and the configuration it runs, and its
// metrics once per registry.
func TestNewReloaderErrors(t *testing.T) {
	path := writeReloadConfig(t)
	cfg, err := Load(path, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	opts, err := cfg.Options(nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := availmon.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewReloader(nil, ReloaderOptions{Path: path, Running: cfg}); err == nil {
		t.Error("no monitor: no error")
	}
	if _, err := NewReloader(m, ReloaderOptions{Path: path}); err == nil {
		t.Error("no running configuration: no error")
	}
	reg := prometheus.NewRegistry()
	if _, err := NewReloader(m, ReloaderOptions{Path: path, Running: cfg, Registerer: reg}); err != nil {
		t.Fatal(err)
	}
	if _, err := NewReloader(m, ReloaderOptions{Path: path, Running: cfg, Registerer: reg}); err == nil || !strings.Contains(err.Error(), "reload metrics") {
		t.Errorf("second reloader on one registry: %v, want the metrics' error", err)
	}
}

// Prepare applies the caller's overrides to every file read, so that a
// setting the caller overrides (the binary's -storage.path) is not
// reported as changed; a refused file sets the success gauge to 0 and a
// good one back to 1.
func TestReloadPrepare(t *testing.T) {
	path := writeReloadConfig(t)
	override := func(c *Config) { c.Storage.Path = "/var/lib/availmon" }
	for _, prepare := range []func(*Config){nil, override} {
		cfg, err := Load(path, env(nil))
		if err != nil {
			t.Fatal(err)
		}
		override(cfg) // what runs
		opts, err := cfg.Options(nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := availmon.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		reg := prometheus.NewRegistry()
		r, err := NewReloader(m, ReloaderOptions{Path: path, Lookup: env(nil), Running: cfg, Prepare: prepare, Registerer: reg})
		if err != nil {
			t.Fatal(err)
		}
		ch, err := r.Reload(t.Context())
		want := []string{"storage.path"}
		if prepare != nil {
			want = nil
		}
		if err != nil || !slices.Equal(ch.RestartNeeded, want) {
			t.Errorf("prepare %v: RestartNeeded %q, %v; want %q", prepare != nil, ch.RestartNeeded, err, want)
		}

		good := readFile(t, path)
		writeFile(t, path, good+"bad_key: 1\n")
		if _, err := r.Reload(t.Context()); err == nil {
			t.Fatal("reload of a bad file: no error")
		}
		if v := testutil.ToFloat64(r.ok); v != 0 {
			t.Errorf("availmon_config_last_reload_successful %v after a refused file, want 0", v)
		}
		writeFile(t, path, good)
		if _, err := r.Reload(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n, err := testutil.GatherAndCount(reg); err != nil || n != 2 || testutil.ToFloat64(r.ok) != 1 {
			t.Errorf("after a good reload: %d series, %v, successful %v; want 2 and 1", n, err, testutil.ToFloat64(r.ok))
		}
	}
}
