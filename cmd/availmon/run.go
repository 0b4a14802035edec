package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/availmon/availmon/config"
	"github.com/availmon/availmon/internal/server"
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

// run is the whole program; main only wires it to the process, so that
// tests can call it in-process. It returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, lookup config.LookupFunc) int {
	if len(args) > 0 && args[0] == "rules" {
		return runRules(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "healthcheck" {
		return runHealthcheck(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "report" {
		return runReport(args[1:], stdout, stderr, lookup)
	}
	s := server.Settings{Lookup: lookup, Version: version, Stdout: stdout, Stderr: stderr}
	fs := flag.NewFlagSet("availmon", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&s.ConfigPath, "config", "", "path of the YAML configuration `file` (required)")
	fs.StringVar(&s.Listen, "listen", "127.0.0.1:8080", "`address` to serve the API on; port 0 picks a free port, logged at start")
	checkOnly := fs.Bool("check-config", false, "check the configuration, print a summary and exit")
	online := fs.Bool("online", false, "with -check-config: also run each discovery rule's query once and print the apps it yields per location")
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.DurationVar(&s.ShutdownTimeout, "shutdown-timeout", 10*time.Second, "how long a SIGTERM waits for requests in progress before closing their connections")
	fs.BoolVar(&s.Page, "web.page", true, "serve the web page (a live map of the locations) at /; -web.page=false serves only the API")
	fs.StringVar(&s.StoragePath, "storage.path", "", "`directory` of the state kept across restarts; overrides storage.path of the file (default \"data\")")
	fs.BoolVar(&s.EnableReload, "web.enable-reload", false, "serve POST /-/reload (signed: needs authentication.hmac) to reload the configuration, as SIGHUP does")
	fs.BoolVar(&s.Pprof, "web.enable-pprof", false, "serve Go's runtime profiles (net/http/pprof) under /debug/pprof/, unauthenticated: for measuring, on an address only you reach")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: availmon -config FILE [-listen ADDR] [-web.page=false] [-check-config [-online]]\n       availmon rules [-for 5m] > availmon-rules.yml\n       availmon healthcheck [-listen ADDR]\n       availmon report -period 2026-11 [-format json|csv|table] [-tz ZONE] -state-dir DIR|-config FILE\n       availmon -version\n\n")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, true); !ok {
		return code
	}
	switch {
	case s.ShutdownTimeout <= 0:
		fmt.Fprintf(stderr, "availmon: -shutdown-timeout must be more than 0, not %s\n", s.ShutdownTimeout)
		return exitUsage
	case *showVersion:
		fmt.Fprintln(stdout, server.VersionText(version))
		return exitOK
	case *online && !*checkOnly:
		fmt.Fprintln(stderr, "availmon: -online goes with -check-config")
		fs.Usage()
		return exitUsage
	case s.ConfigPath == "":
		fmt.Fprintln(stderr, "availmon: -config is required")
		fs.Usage()
		return exitUsage
	case *checkOnly:
		return exitCode(server.Check(ctx, s, *online))
	}
	// Listen before the configuration is read, so that it can name the
	// address actually bound (${AVAILMON_LISTEN_ADDR}), and so that a port
	// already taken is an error at once rather than a monitor probing
	// somebody else's server.
	ln, err := net.Listen("tcp", s.Listen)
	if err != nil {
		fmt.Fprintf(stderr, "availmon: cannot listen on %s: %v (choose another address with -listen)\n", s.Listen, err)
		return exitError
	}
	defer ln.Close() // Serve closes it too; this is for the early returns
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	s.SIGHUP = hup
	return exitCode(server.Serve(ctx, s, ln))
}

// exitCode is the exit code of a run that ended with err, already told.
func exitCode(err error) int {
	if err != nil {
		return exitError
	}
	return exitOK
}

// parseFlags parses args, which must hold flags only; ok is false when the
// program ends there, with code.
func parseFlags(fs *flag.FlagSet, args []string, usageOnArg bool) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK, false
	case err != nil:
		return exitUsage, false
	case fs.NArg() > 0:
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		if usageOnArg {
			fs.Usage()
		}
		return exitUsage, false
	}
	return exitOK, true
}

// runReport is `availmon report` (internal/server.Report).
func runReport(args []string, stdout, stderr io.Writer, lookup config.LookupFunc) int {
	s := server.ReportSettings{Lookup: lookup}
	fs := flag.NewFlagSet("availmon report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&s.Period, "period", "", "calendar `period`: 2026-11-25, 2026-W47, 2026-11, 2026-Q4 or 2026 (required)")
	fs.StringVar(&s.Format, "format", "table", "json, csv or table")
	fs.StringVar(&s.Zone, "tz", "", "IANA time `zone` of the period (default reports.time_zone of -config, else UTC)")
	fs.StringVar(&s.StateDir, "state-dir", "", "state `directory` (default storage.path of -config)")
	fs.StringVar(&s.ConfigPath, "config", "", "configuration `file` naming the state directory and time zone")
	if code, ok := parseFlags(fs, args, true); !ok {
		return code
	}
	err := server.Report(s, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "availmon report: %v\n", err)
	}
	return exitCode(err)
}
