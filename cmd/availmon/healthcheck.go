package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/availmon/availmon/internal/server"
)

// runHealthcheck is `availmon healthcheck`: it asks /health of the availmon
// listening on -listen and exits 0 when it answers 200, 1 otherwise. It is
// the container image's HEALTHCHECK; it takes the same -listen value as the
// server, and an unspecified host (":8080", "0.0.0.0:8080") is asked on the
// loopback address.
func runHealthcheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("availmon healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8080", "the `address` availmon serves on, as given to its -listen")
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the answer")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: availmon healthcheck [-listen ADDR] [-timeout 5s]\n\nExits 0 when GET /health answers 200, 1 otherwise.\n\n")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, false); !ok {
		return code
	}
	if *timeout <= 0 {
		fmt.Fprintf(stderr, "availmon healthcheck: -timeout must be more than 0, not %s\n", *timeout)
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	url := server.HealthURL(*listen)
	status, err := server.GetHealth(ctx, url)
	if err != nil {
		fmt.Fprintf(stderr, "availmon healthcheck: %v\n", err)
		return exitError
	}
	if status != http.StatusOK {
		fmt.Fprintf(stderr, "availmon healthcheck: GET %s: %d %s\n", url, status, http.StatusText(status))
		return exitError
	}
	fmt.Fprintf(stdout, "GET %s: 200 OK\n", url)
	return exitOK
}
