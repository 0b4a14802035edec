package server

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
)

// pprofPrefix is where -web.enable-pprof serves Go's profiles.
const pprofPrefix = "/debug/pprof/"

// withPprof serves net/http/pprof's handlers under /debug/pprof/ next to h.
// It is off by default: profiles show the program's internals and a CPU
// profile costs CPU while it runs, so it is for someone measuring the
// binary (the bench suite takes heap profiles through it), on an address
// only they reach. The handlers are mounted on a mux of their own rather
// than http.DefaultServeMux, which the binary does not serve.
func withPprof(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(pprofPrefix, pprof.Index)
	mux.HandleFunc(pprofPrefix+"cmdline", pprof.Cmdline)
	mux.HandleFunc(pprofPrefix+"profile", pprof.Profile)
	mux.HandleFunc(pprofPrefix+"symbol", pprof.Symbol)
	mux.HandleFunc(pprofPrefix+"trace", pprof.Trace)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, pprofPrefix) {
			mux.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
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

// PprofRequested reports whether args turn -web.enable-pprof on, as the
// flag package would read them. It runs before flags are parsed, so it
// only looks for the flag itself; a bad value is the flag parser's to
// report.
func PprofRequested(args []string) bool {
	on := false
	for _, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "web.enable-pprof" {
			continue
		}
		on = true
		if hasValue {
			on, _ = strconv.ParseBool(value)
		}
	}
	return on
}
