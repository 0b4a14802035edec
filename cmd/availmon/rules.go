package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
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
	fs.BoolVar(&o.OnlyJob, "only-job", false, "read the series of -job alone, so that each availmon deployment scraped by one Prometheus can have its own copy of the rules")
	fs.DurationVar(&o.AppDownFor, "for", 5*time.Minute, "how long an app must be down before AvailmonAppDown fires")
	fs.DurationVar(&o.UnavailableFor, "unavailable-for", 10*time.Minute, "how long no replica may know an app's state before AvailmonAppUnavailable fires")
	fs.DurationVar(&o.ServiceFor, "service-for", 5*time.Minute, "the same for AvailmonServiceDown and AvailmonServiceDegraded")
	fs.DurationVar(&o.BackendFor, "backend-for", 5*time.Minute, "the same for AvailmonBackendDisconnected")
	fs.DurationVar(&o.SaveFor, "save-for", 10*time.Minute, "how long a replica may save no state, while saves fail, before AvailmonStateSaveFailing fires (several storage.save_interval)")
	labels := fs.String("labels", "", "comma-separated `export_labels` that alerts about apps keep besides app and location, for Alertmanager to route on")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: availmon rules [-for 5m] [-unavailable-for 10m] [-service-for 5m] [-backend-for 5m] [-save-for 10m] [-labels team,...] [-job availmon [-only-job]] > availmon-rules.yml\n\n")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, false); !ok {
		return code
	}
	if slices.ContainsFunc([]time.Duration{o.AppDownFor, o.UnavailableFor, o.ServiceFor, o.BackendFor, o.SaveFor},
		func(d time.Duration) bool { return d <= 0 }) || o.Job == "" {
		fmt.Fprintln(stderr, "availmon rules: durations must be more than 0 and -job must not be empty")
		return exitUsage
	}
	for l := range strings.SplitSeq(*labels, ",") {
		if l = strings.TrimSpace(l); l != "" {
			o.Labels = append(o.Labels, l)
		}
	}
	out, err := promexport.Rules(o)
	if err != nil {
		// Every error of Rules is about the options given.
		fmt.Fprintln(stderr, "availmon rules:", err)
		return exitUsage
	}
	stdout.Write(out)
	return exitOK
}
