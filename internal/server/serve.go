package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/availmon/availmon"
)

// Server limits. ReadTimeout and WriteTimeout bound every ordinary request;
// they do not cut /api/ws streams: net/http clears a connection's deadlines
// when a handler hijacks it, and the stream has its own write timeout and
// pings (TestWSOutlivesServerTimeouts).
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 60 * time.Second
	idleTimeout       = 2 * time.Minute
)

// serve runs m and serves h (its API, with or without the web page) on
// the listener until ctx ends, then shuts both down. SIGHUP reloads the
// configuration meanwhile. It returns an error, already logged, when the
// server or the monitor failed.
func (b *binary) serve(ctx context.Context, m *availmon.Monitor, h http.Handler) error {
	logger, ln := b.log, b.ln
	srv := newServer(h, logger)
	var conns connCounter
	srv.ConnState = conns.track

	var reloads sync.WaitGroup
	defer reloads.Wait() // after stopRun, deferred below, ends it
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	reloads.Go(func() { b.onSIGHUP(runCtx) })
	runDone := make(chan error, 1)
	go func() { runDone <- m.Run(runCtx) }()
	serveDone := make(chan error, 1)
	go func() { serveDone <- srv.Serve(ln) }()
	logger.Info("listening", "addr", ln.Addr().String(), "version", b.Version)

	var failed error
	select {
	case <-ctx.Done():
		logger.Info("shutting down", "cause", context.Cause(ctx))
	case failed = <-serveDone:
		logger.Error("server failed", "err", failed)
	case failed = <-runDone:
		// Run returns early only on a programming error; do not serve a
		// monitor that no longer checks anything.
		logger.Error("monitor stopped unexpectedly", "err", failed)
		runDone <- failed
		if failed == nil {
			failed = errors.New("monitor stopped unexpectedly")
		}
	}
	// Stop the checks first: /health turns 503 and the WebSocket streams
	// end with the shutdown event, so that clients and load balancers see
	// the monitor going away while the listener drains.
	stopRun()
	if err := <-runDone; err != nil && failed == nil {
		logger.Error("monitor stopped with an error", "err", err)
		failed = err
	}
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		// Clients that hold a request open past the drain (one trickling
		// a body) are cut: that is the shutdown working as designed, not
		// a failure, so the exit status stays 0.
		logger.Warn("connections still busy after the shutdown timeout: closed them", "connections", conns.open(),
			"timeout", b.ShutdownTimeout)
		srv.Close()
	}
	logger.Info("shutdown complete")
	return failed
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

// connCounter follows the server's connections, to say how many a forced
// close cut. Hijacked ones (/api/ws streams) are the handler's, not the
// server's, and are not counted.
type connCounter struct {
	mu    sync.Mutex
	conns map[net.Conn]bool
}

// track is an http.Server ConnState hook.
func (c *connCounter) track(conn net.Conn, state http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conns == nil {
		c.conns = make(map[net.Conn]bool)
	}
	switch state {
	case http.StateHijacked, http.StateClosed:
		delete(c.conns, conn)
	default:
		c.conns[conn] = true
	}
}

// open is how many connections the server still holds.
func (c *connCounter) open() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.conns)
}
