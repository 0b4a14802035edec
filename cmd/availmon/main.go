// Command availmon serves the availmon API for the apps, locations and
// backends of a YAML configuration file.
//
//	availmon -config availmon.yaml [-listen 127.0.0.1:8080]
//	availmon -config availmon.yaml -check-config
//	availmon -version
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// defaultGOGC is the collector's target when the environment sets no GOGC.
// Go's default of 100 lets the heap grow to twice what is live before a
// collection; most of availmon's live heap is pointer-free (check
// histories, day windows), cheap to collect, and it makes little garbage a
// cycle, so a tighter target costs almost no CPU and a third of the
// resident memory (see the README's Decisions, Serving and memory).
// VictoriaMetrics sets its own GOGC for the same reason.
const defaultGOGC = 50

func main() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(defaultGOGC)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
	stop()
	os.Exit(code)
}
