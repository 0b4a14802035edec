// Command availmon serves the availmon API for the apps, locations and
// backends of a YAML configuration file.
//
//	availmon -config availmon.yaml [-listen 127.0.0.1:8080]
//	availmon -config availmon.yaml -check-config
//	availmon -version
//	availmon healthcheck [-listen 127.0.0.1:8080]
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"

	// HTTP probes and Prometheus backends over HTTPS verify certificates
	// on machines without a CA bundle (scratch, distroless): Mozilla's
	// roots are used only where the system has none. The time zones of
	// recurring maintenance windows load without /usr/share/zoneinfo.
	_ "golang.org/x/crypto/x509roots/fallback"
	_ "time/tzdata"

	"github.com/availmon/availmon/internal/gcpace"
	"github.com/availmon/availmon/internal/server"
)

func main() {
	_, gogcSet := os.LookupEnv("GOGC")
	if !gogcSet {
		debug.SetGCPercent(gcpace.Default)
	}
	if !server.PprofRequested(os.Args[1:]) {
		// Only /debug/pprof/ reads the heap profile. Sampling for it
		// costs a stack walk per sampled allocation and a table of
		// call stacks that only grows (1.5 MB at 10,000 apps). Go asks
		// that the rate be set once, before the program allocates much.
		runtime.MemProfileRate = 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	_, limitSet := os.LookupEnv("GOMEMLIMIT") // the operator's too: the pacer then sets only GOGC
	paced := make(chan struct{})
	go func() {
		defer close(paced)
		if !gogcSet { // a GOGC of the environment is the operator's
			gcpace.Pace(ctx, !limitSet)
		}
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
	stop()
	<-paced
	os.Exit(code)
}
