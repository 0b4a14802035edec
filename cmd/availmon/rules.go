package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/availmon/availmon/promexport"
)

// runRules is `availmon rules`: it prints Prometheus alerting and recording
// rules for what availmon exports, for a rule_files: line of Prometheus.
func runRules(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("availmon rules", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o promexport.RuleOptions
	fs.StringVar(&o.Job, "job", "availmon", "the `job` label Prometheus scrapes availmon under")
	fs.DurationVar(&o.AppDownFor, "for", 5*time.Minute, "how long an app must be down before AvailmonAppDown fires")
	fs.DurationVar(&o.ServiceFor, "service-for", 5*time.Minute, "the same for AvailmonServiceDown and AvailmonServiceDegraded")
	fs.DurationVar(&o.BackendFor, "backend-for", 5*time.Minute, "the same for AvailmonBackendDisconnected")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: availmon rules [-for 5m] [-service-for 5m] [-backend-for 5m] [-job availmon] > availmon-rules.yml\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "availmon rules: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if o.AppDownFor <= 0 || o.ServiceFor <= 0 || o.BackendFor <= 0 || o.Job == "" {
		fmt.Fprintln(stderr, "availmon rules: durations must be more than 0 and -job must not be empty")
		return exitUsage
	}
	out, err := promexport.Rules(o)
	if err != nil {
		fmt.Fprintln(stderr, "availmon rules:", err)
		return exitError
	}
	stdout.Write(out)
	return exitOK
}
