package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"time"
)

// healthBodyLimit bounds what the health check reads of an answer: /health
// answers about 100 bytes, and the check must not hang on a stranger that
// happens to hold the port.
const healthBodyLimit = 4 << 10

// runHealthcheck is `availmon healthcheck`: it asks /health of the availmon
// listening on -listen and exits 0 when it answers 200, 1 otherwise. It is
// the container image's HEALTHCHECK, which has no shell and no curl; it
// takes the same -listen value as the server, and an unspecified host
// (":8080", "0.0.0.0:8080") is asked on the loopback address.
func runHealthcheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("availmon healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8080", "the `address` availmon serves on, as given to its -listen")
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the answer")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: availmon healthcheck [-listen ADDR] [-timeout 5s]\n\nExits 0 when GET /health answers 200, 1 otherwise.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "availmon healthcheck: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *timeout <= 0 {
		fmt.Fprintf(stderr, "availmon healthcheck: -timeout must be more than 0, not %s\n", *timeout)
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	url := "http://" + dialAddr(*listen) + "/health"
	status, err := getHealth(ctx, url)
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

// getHealth returns the status of GET url. It uses no proxy: a container's
// HTTP_PROXY must not carry a request for the loopback address elsewhere.
func getHealth(ctx context.Context, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	client := &http.Client{
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		// /health never redirects; a redirect is somebody else.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, healthBodyLimit))
	return resp.StatusCode, nil
}
