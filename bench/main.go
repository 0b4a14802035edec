// Command bench measures availmon's serving speed and memory against a
// static-bytes ceiling, on this machine, with a real Prometheus:
//
//	go run ./bench -apps 1000,10000,50000
//
// For each app count it starts an exporter of that many series, the
// `prometheus` binary scraping it, and the availmon binary (built from
// ./cmd/availmon unless -availmon names one) with one app per series in 100
// locations. Once every app's history is full (-history checks, 100 by
// default) it records resident memory, then drives each endpoint with wrk
// while cycles run, next to a plain Go server that writes a precomputed copy
// of the same answer (the ceiling), and records the peak resident memory
// during the load. It prints the tables and writes them to bench/RESULTS.md
// and bench/RESULTS.json. Ratios (availmon / ceiling) are the figures to
// compare between machines; requests per second depend on the machine and
// what else runs on it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"time"
)

type options struct {
	apps      []int
	locations int
	history   int
	interval  time.Duration
	duration  time.Duration
	threads   int
	conns     int
	availmon  string
	wrk       string
	prom      string
	out       string
	label     string
	only      *regexp.Regexp
	profile   string
	env       []string
	past      past

	objectives   int
	saveInterval time.Duration
}

func main() {
	var o options
	apps := flag.String("apps", "1000,10000,50000", "comma-separated app counts to measure")
	flag.IntVar(&o.locations, "locations", 100, "locations the apps are spread over")
	flag.IntVar(&o.history, "history", 100, "history_size; memory is measured once every app has this many checks")
	flag.DurationVar(&o.interval, "interval", time.Second, "availmon's scrape_interval")
	flag.DurationVar(&o.duration, "d", 10*time.Second, "wrk duration per endpoint")
	flag.IntVar(&o.threads, "t", 2, "wrk threads")
	flag.IntVar(&o.conns, "c", 64, "wrk connections")
	flag.StringVar(&o.availmon, "availmon", "", "availmon binary to measure (default: build ./cmd/availmon)")
	flag.StringVar(&o.wrk, "wrk", "wrk", "wrk binary")
	flag.StringVar(&o.prom, "prometheus", "prometheus", "prometheus binary")
	flag.StringVar(&o.out, "out", "bench/RESULTS", "where to write the results (.md and .json are added)")
	flag.StringVar(&o.label, "label", "", "what is measured, for the report (default: the git commit)")
	flag.StringVar(&o.profile, "profile", "", "`directory` to save the binary's heap profiles (after the fill, after the idle window, after the load) and its GC trace in; the binary then runs with -web.enable-pprof and GODEBUG=gctrace=1")
	env := flag.String("env", "", "comma-separated `KEY=VALUE` pairs added to the availmon binary's environment, e.g. GOGC=50 or GOMEMLIMIT=64MiB")
	pastDays := flag.String("past", "", "`days` of synthetic past (e.g. 400d) the binary starts with, written as its saved state: every app up but for its outages (-past-outages)")
	flag.Float64Var(&o.past.outages, "past-outages", 0.01, "outages in the synthetic past: below 1, the share of apps with one outage a day; from 1 on, how many outages every app has a day")
	flag.BoolVar(&o.past.random, "past-random", false, "place the synthetic past's outages at random times (seeded by app and day), 1 to 20 minutes long, rather than evenly over the day, 10 minutes long")
	flag.IntVar(&o.objectives, "objectives", 0, "objectives in availmon's configuration (one in ten over a location, the rest over apps)")
	flag.DurationVar(&o.saveInterval, "save-interval", 30*time.Second, "availmon's storage.save_interval; the last save's time and the state file's size are reported")
	only := flag.String("only", "", "measure only the endpoints whose row name matches this regular expression")
	flag.Parse()
	var err error
	if o.past.days, err = parsePastDays(*pastDays); err != nil || o.past.outages < 0 {
		fmt.Fprintf(os.Stderr, "bench: %v (or a negative -past-outages)\n", err)
		os.Exit(2)
	}
	if o.past.random && o.past.outages > float64(maxRandomOutages) {
		fmt.Fprintf(os.Stderr, "bench: -past-random places at most %d outages a day, not %g\n", maxRandomOutages, o.past.outages)
		os.Exit(2)
	}
	if o.only, err = regexp.Compile(*only); err != nil {
		fmt.Fprintf(os.Stderr, "bench: bad -only: %v\n", err)
		os.Exit(2)
	}
	for _, kv := range strings.Split(*env, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		if !strings.Contains(kv, "=") {
			fmt.Fprintf(os.Stderr, "bench: bad -env %q: want KEY=VALUE pairs\n", *env)
			os.Exit(2)
		}
		o.env = append(o.env, kv)
	}
	for _, s := range strings.Split(*apps, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "bench: bad -apps %q\n", *apps)
			os.Exit(2)
		}
		o.apps = append(o.apps, n)
	}
	if o.profile != "" {
		// Found missing only after the fill, minutes into the run.
		if err := os.MkdirAll(o.profile, 0o755); err != nil {
			fmt.Fprintf(os.Stderr, "bench: -profile: %v\n", err)
			os.Exit(2)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
