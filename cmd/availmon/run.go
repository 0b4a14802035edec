package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/config"
	"github.com/availmon/availmon/filestore"
	"github.com/availmon/availmon/web"
)

// version is set at link time: go build -ldflags "-X main.version=v1.2.3".
// It is a variable only because -X can set nothing else; nothing assigns it.
var version = "dev"

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // bad configuration, or the server failed
	exitUsage = 2 // bad flags, as the flag package does
)

// Server limits. ReadTimeout and WriteTimeout bound every ordinary request;
// they do not cut /api/ws streams: net/http clears a connection's deadlines
// when a handler hijacks it, and the stream has its own write timeout and
// pings (TestWSOutlivesServerTimeouts).
const (
	readHeaderTimeout      = 10 * time.Second
	readTimeout            = 30 * time.Second
	writeTimeout           = 60 * time.Second
	idleTimeout            = 2 * time.Minute
	defaultShutdownTimeout = 10 * time.Second
)

// run is the whole program; main only wires it to the process, so that
// tests can call it in-process. It returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, lookup config.LookupFunc) int {
	if len(args) > 0 && args[0] == "rules" {
		return runRules(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "healthcheck" {
		return runHealthcheck(ctx, args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("availmon", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "path of the YAML configuration `file` (required)")
	listen := fs.String("listen", "127.0.0.1:8080", "`address` to serve the API on; port 0 picks a free port, logged at start")
	checkOnly := fs.Bool("check-config", false, "check the configuration, print a summary and exit")
	online := fs.Bool("online", false, "with -check-config: also run each discovery rule's query once and print the apps it yields per location")
	showVersion := fs.Bool("version", false, "print the version and exit")
	shutdownWait := fs.Duration("shutdown-timeout", defaultShutdownTimeout, "how long a SIGTERM waits for requests in progress before closing their connections")
	page := fs.Bool("web.page", true, "serve the web page (a live map of the locations) at /; -web.page=false serves only the API")
	storagePath := fs.String("storage.path", "", "`directory` of the state kept across restarts; overrides storage.path of the file (default \"data\")")
	enableReload := fs.Bool("web.enable-reload", false, "serve POST /-/reload (signed: needs authentication.hmac) to reload the configuration, as SIGHUP does")
	enablePprof := fs.Bool("web.enable-pprof", false, "serve Go's runtime profiles (net/http/pprof) under /debug/pprof/, unauthenticated: for measuring, on an address only you reach")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: availmon -config FILE [-listen ADDR] [-web.page=false] [-check-config [-online]]\n       availmon rules [-for 5m] > availmon-rules.yml\n       availmon healthcheck [-listen ADDR]\n       availmon -version\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "availmon: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	if *shutdownWait <= 0 {
		fmt.Fprintf(stderr, "availmon: -shutdown-timeout must be more than 0, not %s\n", *shutdownWait)
		return exitUsage
	}
	if *showVersion {
		fmt.Fprintln(stdout, versionText())
		return exitOK
	}
	if *online && !*checkOnly {
		fmt.Fprintln(stderr, "availmon: -online goes with -check-config")
		fs.Usage()
		return exitUsage
	}
	if *configPath == "" {
		fmt.Fprintln(stderr, "availmon: -config is required")
		fs.Usage()
		return exitUsage
	}

	// Listen before the configuration is read, so that it can name the
	// address actually bound (${AVAILMON_LISTEN_ADDR}), and so that a port
	// already taken is an error at once rather than a monitor probing
	// somebody else's server.
	listenAddr := dialAddr(*listen)
	var ln net.Listener
	if !*checkOnly {
		var err error
		if ln, err = net.Listen("tcp", *listen); err != nil {
			fmt.Fprintf(stderr, "availmon: cannot listen on %s: %v (choose another address with -listen)\n", *listen, err)
			return exitError
		}
		defer ln.Close() // serve closes it too; this is for the early returns
		listenAddr = dialAddr(ln.Addr().String())
	}
	lookup = withListenAddr(lookup, listenAddr)

	cfg, err := config.Load(*configPath, lookup)
	if err != nil {
		// One problem per line, each "file:line: message".
		fmt.Fprintln(stderr, err)
		return exitError
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	if *enableReload && cfg.HMAC == nil && !cfg.AllowUnauthenticatedWrites {
		fmt.Fprintf(stderr, "%s: -web.enable-reload needs authentication.hmac (or authentication.allow_unauthenticated_writes): POST /-/reload is a write\n", *configPath)
		return exitError
	}
	var store *filestore.Store // -check-config touches no file
	if !*checkOnly {
		if store, err = openStore(cfg.Storage, *storagePath, logger); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", *configPath, err)
			return exitError
		}
	}
	opts, err := monitorOptions(cfg, store, logger)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", *configPath, err)
		return exitError
	}
	// /metrics serves this registry, the process's own families, next to
	// the monitor's (which are not registered on it: the monitor serves
	// them from a cache made once per cycle).
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	opts.Gatherer = reg
	opts.Version = version
	if *storagePath != "" {
		cfg.Storage.Path = *storagePath // what runs, for the reload's comparison
	}
	reload := newReloader(*configPath, lookup, cfg, logger, reg)
	reload.storagePath = *storagePath
	if *enableReload {
		opts.Reload = reload.reload
	}
	m, err := availmon.New(opts)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", *configPath, err)
		return exitError
	}
	reload.m = m
	if *checkOnly {
		fmt.Fprintln(stdout, checkSummary(cfg))
		if *online {
			return checkOnline(ctx, m, stdout)
		}
		return exitOK
	}
	h := m.Handler()
	if *page {
		h = web.Handler(h)
	}
	if *enablePprof {
		h = withPprof(h)
	}
	warnExposed(logger, ln.Addr(), opts.AllowUnauthenticatedWrites, *enablePprof)
	return serve(ctx, m, h, ln, logger, reload, *shutdownWait)
}

// monitorOptions are the monitor's options for cfg. With a store (none
// when only checking the configuration) the state is kept in its directory,
// and so are the signatures the verifier accepts: it must have them on disk
// before it lets a request through.
func monitorOptions(cfg *config.Config, store *filestore.Store, logger *slog.Logger) (availmon.Options, error) {
	if store != nil {
		cfg.ReplayFile = replayFile(store)
	}
	opts, err := cfg.Options(logger)
	if err != nil {
		return opts, err
	}
	if store != nil {
		opts.Store = store
		opts.SaveInterval, opts.Backfill = cfg.Storage.SaveInterval, cfg.Storage.Backfill
	}
	return opts, nil
}

// serve runs the monitor and serves h (its API, with or without the web
// page) on ln until ctx ends, then shuts both down. SIGHUP reloads the
// configuration meanwhile.
func serve(ctx context.Context, m *availmon.Monitor, h http.Handler, ln net.Listener, logger *slog.Logger, reload *reloader, shutdownTimeout time.Duration) int {
	srv := newServer(h, logger)
	var conns connCounter
	srv.ConnState = conns.track

	var reloads sync.WaitGroup
	defer reloads.Wait() // after stopRun, deferred below, ends it
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	reloads.Go(func() { reload.onSIGHUP(runCtx) })
	runDone := make(chan error, 1)
	go func() { runDone <- m.Run(runCtx) }()
	serveDone := make(chan error, 1)
	go func() { serveDone <- srv.Serve(ln) }()
	logger.Info("listening", "addr", ln.Addr().String(), "version", version)

	code := exitOK
	select {
	case <-ctx.Done():
		logger.Info("shutting down", "cause", context.Cause(ctx))
	case err := <-serveDone:
		logger.Error("server failed", "err", err)
		code = exitError
	case err := <-runDone:
		// Run returns early only on a programming error; do not serve a
		// monitor that no longer checks anything.
		logger.Error("monitor stopped unexpectedly", "err", err)
		runDone <- err
		code = exitError
	}
	// Stop the checks first: /health turns 503 and the WebSocket streams
	// end with the shutdown event, so that clients and load balancers see
	// the monitor going away while the listener drains.
	stopRun()
	if err := <-runDone; err != nil && code == exitOK {
		logger.Error("monitor stopped with an error", "err", err)
		code = exitError
	}
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		// Clients that hold a request open past the drain (one trickling
		// a body) are cut: that is the shutdown working as designed, not
		// a failure, so the exit status stays 0.
		logger.Warn("connections still busy after the shutdown timeout: closed them", "connections", conns.open(),
			"timeout", shutdownTimeout)
		srv.Close()
	}
	logger.Info("shutdown complete")
	return code
}

// newServer returns the server for h with every timeout set, so that a slow
// or idle client cannot hold a connection for ever.
func newServer(h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// checkSummary is what -check-config prints for a good configuration. It
// counts the Prometheus backends the file names, not the backend the
// library is given for HTTP probes, which the user never wrote.
func checkSummary(cfg *config.Config) string {
	probes := 0
	for _, a := range cfg.Apps {
		if a.HTTP != nil {
			probes++
		}
	}
	apps := count(len(cfg.Apps), "app", "apps")
	if probes > 0 {
		apps += fmt.Sprintf(" (%s)", count(probes, "HTTP probe", "HTTP probes"))
	}
	return fmt.Sprintf("config OK: %s, %s, %s", apps, count(len(cfg.Locations), "location", "locations"),
		count(len(cfg.Prometheus), "Prometheus backend", "Prometheus backends"))
}

// count says "1 app" or "2 apps".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// versionText is the -version output: the linked-in version and what the Go
// toolchain recorded about the build.
func versionText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "availmon %s", version)
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b.String()
	}
	fmt.Fprintf(&b, " (%s", info.GoVersion)
	if v := info.Main.Version; v != "" && v != "(devel)" {
		fmt.Fprintf(&b, ", module %s", v)
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision", "vcs.time", "vcs.modified":
			fmt.Fprintf(&b, ", %s=%s", s.Key, s.Value)
		}
	}
	b.WriteString(")")
	return b.String()
}
