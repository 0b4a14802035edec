package config

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/internal/errlist"
)

// DefaultReadTimeout is ReloaderOptions.ReadTimeout when it is 0.
const DefaultReadTimeout = 10 * time.Second

// ReloaderOptions configure a Reloader. Running is required.
type ReloaderOptions struct {
	// Path is the file read again on every reload.
	Path string
	// Lookup supplies ${VAR} in the file, as it does to Load; nil reads
	// the environment.
	Lookup LookupFunc
	// Running is the configuration the monitor was built from. A reload
	// reports the settings that differ from it but take effect only after
	// a restart (availmon.ConfigChange.RestartNeeded).
	Running *Config
	// Prepare, when set, is applied to every configuration read, before
	// its options are built, as the caller applied it to Running: the
	// binary's -storage.path overrides storage.path of the file there.
	// Only what Monitor.Reconfigure reads of the options takes effect;
	// the Authenticator and the store stay those of the start.
	Prepare func(*Config)
	// Logger gets a line for every reload and one for every problem of a
	// file refused; nil discards.
	Logger *slog.Logger
	// Registerer, when set, gets availmon_config_last_reload_successful and
	// availmon_config_last_reload_success_timestamp_seconds, Prometheus's
	// own names for the same thing, so that the same alerts work.
	Registerer prometheus.Registerer
	// ReadTimeout bounds the wait for the file to be read and built: a
	// file on a hung NFS or FUSE mount blocks its read in the kernel for
	// ever. 0 means DefaultReadTimeout.
	ReadTimeout time.Duration
}

// Reloader reads the configuration file again and applies it to a running
// Monitor with Monitor.Reconfigure. A file that does not load changes
// nothing: the old configuration keeps running and every problem is logged
// with its line. Its Reload is an availmon.ReloadFunc, the one entry point
// of every reload (SIGHUP, POST /-/reload, a watcher of the file).
//
// Reloads take turns: one reads and applies the file while the others
// wait, so that the last to start applies the newest file. The read runs
// on a goroutine of its own, and a reload waits for it at most ReadTimeout
// and never longer than its context: a read that blocks fails its reload,
// and the reloads after it fail at once until the read returns, rather
// than wait for ever and hold up shutdown. That goroutine is the only one
// a Reloader starts; it ends when the read returns.
type Reloader struct {
	path        string
	lookup      LookupFunc
	prepare     func(*Config)
	log         *slog.Logger
	m           *availmon.Monitor
	readTimeout time.Duration
	// load reads and checks the file: Load, replaced in tests by one
	// that blocks as a hung mount does.
	load func(path string, lookup LookupFunc) (*Config, error)

	mu   sync.Mutex // guards turn; held for a few instructions, never across I/O
	turn *turn      // the reload reading or applying, nil when none

	cur         *Config // only the turn's owner touches it
	ok, success prometheus.Gauge
}

// turn is one reload's read and apply of the file.
type turn struct {
	readDone chan struct{} // closed when the read has returned
	free     chan struct{} // closed when the next reload may start
	deadline time.Time     // the read is given up if not returned by then
	// Set by the read before readDone is closed.
	cfg  *Config
	opts availmon.Options
	err  error
	// Under Reloader.mu: the read has returned; its reload gave up
	// waiting for it, so the read frees the turn.
	returned, abandoned bool
}

// NewReloader returns a Reloader of the file opts.Path for m, which was
// built from opts.Running. It fails when the metrics cannot be registered.
func NewReloader(m *availmon.Monitor, opts ReloaderOptions) (*Reloader, error) {
	if m == nil || opts.Running == nil {
		return nil, errors.New("config: NewReloader needs the Monitor and the Running configuration")
	}
	r := &Reloader{path: opts.Path, lookup: opts.Lookup, prepare: opts.Prepare, log: opts.Logger, m: m,
		readTimeout: opts.ReadTimeout, load: Load, cur: settingsOf(opts.Running),
		ok: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "availmon_config_last_reload_successful",
			Help: "Whether the last configuration reload attempt was successful: 1 yes, 0 no.",
		}),
		success: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "availmon_config_last_reload_success_timestamp_seconds",
			Help: "Unix time of the last successful configuration reload (or of the start).",
		}),
	}
	if r.lookup == nil {
		r.lookup = os.LookupEnv
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.readTimeout <= 0 {
		r.readTimeout = DefaultReadTimeout
	}
	if opts.Registerer != nil {
		for _, c := range []prometheus.Collector{r.ok, r.success} {
			if err := opts.Registerer.Register(c); err != nil {
				return nil, fmt.Errorf("config: reload metrics: %w", err)
			}
		}
	}
	// The start counts as a successful load, as in Prometheus.
	r.ok.Set(1)
	r.success.SetToCurrentTime()
	return r, nil
}

// Reload reads the file again, applies it and reports what changed; the
// error joins every problem of a file refused. It logs the outcome, and
// the settings that changed but need a restart. It returns when ctx ends,
// also while the file is being read.
func (r *Reloader) Reload(ctx context.Context) (availmon.ConfigChange, error) {
	start := time.Now()
	ch, err := r.readAndApply(ctx)
	if err != nil {
		r.ok.Set(0)
		for _, p := range errlist.Split(err) {
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

func (r *Reloader) readAndApply(ctx context.Context) (availmon.ConfigChange, error) {
	t, err := r.takeTurn(ctx)
	if err != nil {
		return availmon.ConfigChange{}, err
	}
	if err := r.awaitRead(ctx, t); err != nil {
		return availmon.ConfigChange{}, err
	}
	defer r.release(t)
	return r.apply(t.cfg, t.opts)
}

// takeTurn waits for the reload before this one, and starts the read of
// the file.
func (r *Reloader) takeTurn(ctx context.Context) (*turn, error) {
	for {
		r.mu.Lock()
		t := r.turn
		if t == nil {
			t = &turn{readDone: make(chan struct{}), free: make(chan struct{}), deadline: time.Now().Add(r.readTimeout)}
			r.turn = t
			r.mu.Unlock()
			// Not stopped by ctx: a read blocked in the kernel cannot be
			// interrupted. It ends when the read returns, and there is
			// never more than one.
			go r.read(t)
			return t, nil
		}
		r.mu.Unlock()
		if err := r.waitTurn(ctx, t); err != nil {
			return nil, err
		}
	}
}

// waitTurn waits until t frees the turn. While t is reading, it waits no
// longer than t's own deadline: a read past it is stuck.
func (r *Reloader) waitTurn(ctx context.Context, t *turn) error {
	timer := time.NewTimer(time.Until(t.deadline))
	defer timer.Stop()
	select {
	case <-t.free:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.readDone:
		// Applying: bounded by the cycle in progress.
	case <-timer.C:
		select {
		case <-t.readDone:
		default:
			return fmt.Errorf("%s: an earlier read of the file has not returned after %s (a hung mount?); not read again until it does",
				r.path, r.readTimeout)
		}
	}
	select {
	case <-t.free:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// read reads and builds the configuration for turn t.
func (r *Reloader) read(t *turn) {
	cfg, err := r.load(r.path, r.lookup)
	if err == nil {
		if r.prepare != nil {
			r.prepare(cfg)
		}
		t.opts, err = cfg.Options(r.log)
	}
	t.cfg, t.err = cfg, err
	r.mu.Lock()
	t.returned = true
	if t.abandoned {
		r.freeLocked(t)
	}
	r.mu.Unlock()
	close(t.readDone)
}

// awaitRead waits for t's read, at most until its deadline and while ctx
// lasts. On an error the turn is given up.
func (r *Reloader) awaitRead(ctx context.Context, t *turn) error {
	timer := time.NewTimer(time.Until(t.deadline))
	defer timer.Stop()
	var err error
	select {
	case <-t.readDone:
	case <-ctx.Done():
		err = ctx.Err()
	case <-timer.C:
		select {
		case <-t.readDone:
		default:
			err = fmt.Errorf("%s: reading the file did not finish within %s (a hung mount?)", r.path, r.readTimeout)
		}
	}
	if err == nil {
		if t.err != nil {
			r.release(t)
		}
		return t.err
	}
	r.mu.Lock()
	if t.returned {
		r.freeLocked(t)
	} else {
		t.abandoned = true // the read frees the turn when it returns
	}
	r.mu.Unlock()
	return err
}

func (r *Reloader) release(t *turn) {
	r.mu.Lock()
	r.freeLocked(t)
	r.mu.Unlock()
}

func (r *Reloader) freeLocked(t *turn) {
	if r.turn == t {
		r.turn = nil
		close(t.free)
	}
}

// apply applies a configuration read; only the turn's owner calls it.
func (r *Reloader) apply(cfg *Config, opts availmon.Options) (availmon.ConfigChange, error) {
	ch, err := r.m.Reconfigure(opts)
	if err != nil {
		return availmon.ConfigChange{}, err
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
func settingsOf(cfg *Config) *Config {
	c := *cfg
	c.Apps, c.Discover = nil, nil
	return &c
}
