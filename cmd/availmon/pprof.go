package main

import (
	"net/http"
	"net/http/pprof"
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
