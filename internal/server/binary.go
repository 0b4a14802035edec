package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/config"
	"github.com/availmon/availmon/filestore"
	"github.com/availmon/availmon/web"
)

// Settings are what the binary's command line says about its monitor.
type Settings struct {
	ConfigPath string
	// Listen is the -listen address, named by ${AVAILMON_LISTEN_ADDR}
	// when only checking the configuration.
	Listen string
	// StoragePath, when set, overrides storage.path of the file.
	StoragePath string
	// Lookup supplies ${VAR} in the file; AVAILMON_LISTEN_ADDR is set
	// from the address served on.
	Lookup                    config.LookupFunc
	Page, EnableReload, Pprof bool
	ShutdownTimeout           time.Duration
	Version                   string
	// SIGHUP delivers the signals that reload the configuration.
	SIGHUP         <-chan os.Signal
	Stdout, Stderr io.Writer // Stderr gets the problems and the log
}

// errReported is the error of a run that has already told why it ended.
var errReported = errors.New("availmon: failed")

// binary is one run of the binary: its settings and what it built.
type binary struct {
	Settings
	log    *slog.Logger     // made once the file says its level
	reload *config.Reloader // set by Serve before anything is served
	ln     net.Listener     // nil when only checking
}

// Check checks the configuration as `availmon -check-config` does, and
// with online runs each discovery rule's query once. It touches no file.
// The error has already been written to s.Stderr.
func Check(ctx context.Context, s Settings, online bool) error {
	b := &binary{Settings: s}
	cfg, m, _, err := b.build()
	if err != nil {
		return err
	}
	fmt.Fprintln(s.Stdout, "config OK: "+cfg.Summary())
	for _, l := range cfg.ObjectiveLines() {
		fmt.Fprintln(s.Stdout, l)
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(s.Stdout, "warning: "+w.Error())
	}
	if online {
		return config.CheckDiscovery(ctx, m, s.Stdout)
	}
	return nil
}

// Serve builds the monitor the configuration file describes, keeping its
// state in the storage directory, and serves it on ln until ctx ends. The
// error has already been written to s.Stderr or logged.
func Serve(ctx context.Context, s Settings, ln net.Listener) error {
	b := &binary{Settings: s, ln: ln}
	cfg, m, reg, err := b.build()
	if err != nil {
		return err
	}
	b.reload, err = config.NewReloader(m, config.ReloaderOptions{Path: s.ConfigPath, Lookup: b.lookup(),
		Running: cfg, Prepare: b.override, Logger: b.log, Registerer: reg})
	if err != nil {
		return b.fail(err)
	}
	h := m.Handler()
	if s.Page {
		h = web.Handler(h)
	}
	if s.Pprof {
		h = withPprof(h)
	}
	warnExposed(b.log, ln.Addr(), cfg.AllowUnauthenticatedWrites, s.Pprof)
	return b.serve(ctx, m, h)
}

// build reads the configuration and builds the monitor it describes; when
// serving, its state is kept in the storage directory. reg is what
// /metrics serves next to the monitor's own families: the process's.
func (b *binary) build() (*config.Config, *availmon.Monitor, *prometheus.Registry, error) {
	cfg, err := config.Load(b.ConfigPath, b.lookup())
	if err != nil {
		fmt.Fprintln(b.Stderr, err) // one problem per line, each "file:line: message"
		return nil, nil, nil, errReported
	}
	b.log = slog.New(slog.NewTextHandler(b.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	if b.EnableReload && cfg.HMAC == nil && !cfg.AllowUnauthenticatedWrites {
		return nil, nil, nil, b.fail(errors.New("-web.enable-reload needs authentication.hmac (or authentication.allow_unauthenticated_writes): POST /-/reload is a write"))
	}
	b.override(cfg)
	var store *filestore.Store // -check-config touches no file
	if b.ln != nil {
		if store, err = cfg.Storage.Open(b.log); err != nil {
			return nil, nil, nil, b.fail(err)
		}
	}
	opts, err := cfg.OptionsWithStore(store, b.log)
	if err != nil {
		return nil, nil, nil, b.fail(err)
	}
	// The monitor's families are not registered on reg: it serves them
	// from a cache made once per cycle.
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	opts.Gatherer, opts.Version = reg, b.Version
	if b.EnableReload {
		opts.Reload = func(ctx context.Context) (availmon.ConfigChange, error) { return b.reload.Reload(ctx) }
	}
	m, err := availmon.New(opts)
	if err != nil {
		return nil, nil, nil, b.fail(err)
	}
	return cfg, m, reg, nil
}

// override applies the command line's settings to a configuration read.
func (b *binary) override(cfg *config.Config) {
	if b.StoragePath != "" {
		cfg.Storage.Path = b.StoragePath
	}
}

// lookup is Lookup with AVAILMON_LISTEN_ADDR set to where a client on
// this host reaches the address served, whatever the environment says: the
// variable describes this process, and the quick start probes availmon
// itself through it. With -listen 127.0.0.1:0 it is the port picked; when
// only checking, the address -listen names.
func (b *binary) lookup() config.LookupFunc {
	addr := DialAddr(b.Listen)
	if b.ln != nil {
		addr = DialAddr(b.ln.Addr().String())
	}
	return func(name string) (string, bool) {
		if name == "AVAILMON_LISTEN_ADDR" {
			return addr, true
		}
		return b.Lookup(name)
	}
}

// fail writes err, a problem of the configuration file, to Stderr.
func (b *binary) fail(err error) error {
	fmt.Fprintf(b.Stderr, "%s: %v\n", b.ConfigPath, err)
	return errReported
}

// onSIGHUP reloads the configuration on every SIGHUP until ctx ends.
func (b *binary) onSIGHUP(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.SIGHUP:
			b.log.Info("SIGHUP received: reloading the configuration", "file", b.ConfigPath)
			b.reload.Reload(ctx) //nolint:errcheck // logged and counted by Reload
		}
	}
}
