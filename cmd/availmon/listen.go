package main

import (
	"log/slog"
	"net"
	"net/http"
	"sync"

	"github.com/availmon/availmon/config"
)

// listenAddrVar is the variable a configuration file can use for the
// address the binary serves on, once it is bound: with -listen 127.0.0.1:0
// it is the port the kernel picked. The quick start probes availmon itself
// through it, on whatever address it runs.
const listenAddrVar = "AVAILMON_LISTEN_ADDR"

// withListenAddr is lookup with listenAddrVar set to addr, whatever the
// environment says: the variable describes this process.
func withListenAddr(lookup config.LookupFunc, addr string) config.LookupFunc {
	return func(name string) (string, bool) {
		if name == listenAddrVar {
			return addr, true
		}
		return lookup(name)
	}
}

// dialAddr is how a client on this host reaches a server listening on
// hostport: an unspecified host (":8080", "0.0.0.0:8080", "[::]:8080")
// is reached on the IPv4 loopback address.
func dialAddr(hostport string) string {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return hostport
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
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

// warnExposed warns at start about what serves unauthenticated on an
// address other hosts may reach: writes opened without authentication
// (anyone who reaches the port can open a maintenance window and so
// silence the alerts) and the profiles of -web.enable-pprof. On a loopback
// address only this host reaches them.
func warnExposed(logger *slog.Logger, addr net.Addr, openWrites, pprof bool) {
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
		return
	}
	if openWrites {
		logger.Warn("writes are unauthenticated (authentication.allow_unauthenticated_writes) on a non-loopback address: anyone who reaches it can change the scrape interval and open maintenance windows, which silence alerts; authenticate them in front of availmon or configure authentication.hmac",
			"addr", addr.String())
	}
	if pprof {
		logger.Warn("-web.enable-pprof serves Go's profiles unauthenticated on a non-loopback address: anyone who reaches it can read the program's internals and make it profile; serve them on a loopback address",
			"addr", addr.String())
	}
}
