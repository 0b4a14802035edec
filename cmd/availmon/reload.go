package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/config"
)

// reloader reads the configuration file again and applies it to the running
// monitor, on SIGHUP and (with -web.enable-reload) on a signed POST
// /-/reload. A file that does not load changes nothing: the old
// configuration keeps running and every problem is logged with its line.
type reloader struct {
	path   string
	lookup config.LookupFunc
	log    *slog.Logger
	m      *availmon.Monitor // set once New has built it
	// storagePath is -storage.path: it overrides the file's
	// storage.path, so a change of that key alone changes nothing.
	storagePath string

	mu          sync.Mutex // one reload at a time
	cur         *config.Config
	ok, success prometheus.Gauge
}

func newReloader(path string, lookup config.LookupFunc, cfg *config.Config, log *slog.Logger, reg prometheus.Registerer) *reloader {
	r := &reloader{path: path, lookup: lookup, log: log, cur: settingsOf(cfg),
		// Prometheus's own names for the same thing, so that the same
		// alerts work.
		ok: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "availmon_config_last_reload_successful",
			Help: "Whether the last configuration reload attempt was successful: 1 yes, 0 no.",
		}),
		success: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "availmon_config_last_reload_success_timestamp_seconds",
			Help: "Unix time of the last successful configuration reload (or of the start).",
		}),
	}
	reg.MustRegister(r.ok, r.success)
	// The start counts as a successful load, as in Prometheus.
	r.ok.Set(1)
	r.success.SetToCurrentTime()
	return r
}

// reload applies the file again and reports what changed. It is a
// availmon.ReloadFunc.
func (r *reloader) reload(context.Context) (availmon.ConfigChange, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	start := time.Now()
	ch, err := r.apply()
	if err != nil {
		r.ok.Set(0)
		for _, p := range problemList(err) {
			r.log.Error("configuration reload failed; the running configuration is unchanged", "file", r.path, "problem", p)
		}
		return ch, err
	}
	r.ok.Set(1)
	r.success.SetToCurrentTime()
	r.log.Info("configuration reloaded", "file", r.path, "apps", ch.Apps,
		"apps_added", len(ch.AppsAdded), "apps_removed", len(ch.AppsRemoved), "apps_changed", len(ch.AppsChanged),
		"took", time.Since(start))
	for _, s := range ch.RestartNeeded {
		r.log.Warn("setting changed in the file; it takes effect only after a restart", "file", r.path, "setting", s)
	}
	return ch, nil
}

func (r *reloader) apply() (availmon.ConfigChange, error) {
	cfg, err := config.Load(r.path, r.lookup)
	if err != nil {
		return availmon.ConfigChange{}, err
	}
	opts, err := cfg.Options(r.log)
	if err != nil {
		return availmon.ConfigChange{}, err
	}
	ch, err := r.m.Reconfigure(opts)
	if err != nil {
		return availmon.ConfigChange{}, err
	}
	if r.storagePath != "" {
		cfg.Storage.Path = r.storagePath
	}
	ch.RestartNeeded = cfg.RestartNeeded(r.cur)
	if cfg.Interval != r.cur.Interval {
		// Only a change in the file: an interval set through the API
		// stays until the file says otherwise.
		if err := r.m.SetInterval(cfg.Interval); err != nil {
			r.log.Error("reload: scrape_interval not applied", "err", err)
		}
	}
	r.cur = settingsOf(cfg)
	return ch, nil
}

// settingsOf is cfg without its apps and rules, all a reload compares
// against: the Monitor has its own copy of them, and at 50,000 apps the
// config's would be several megabytes kept for nothing.
func settingsOf(cfg *config.Config) *config.Config {
	c := *cfg
	c.Apps, c.Discover = nil, nil
	return &c
}

// onSIGHUP reloads on every SIGHUP until ctx ends.
func (r *reloader) onSIGHUP(ctx context.Context) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			r.log.Info("SIGHUP received: reloading the configuration", "file", r.path)
			r.reload(ctx) //nolint:errcheck // logged and counted by reload
		}
	}
}

// problemList splits a joined error into its problems.
func problemList(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, problemList(e)...)
		}
		return out
	}
	if u := errors.Unwrap(err); u != nil {
		if _, ok := u.(interface{ Unwrap() []error }); ok {
			return problemList(u)
		}
	}
	return []error{err}
}
