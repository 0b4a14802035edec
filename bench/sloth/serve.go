package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os/signal"
	"syscall"
	"time"
)

// runServe exports, at every scrape, what availmon would for the fleet:
// availmon_up of every app now, and for every objective its burn rates,
// budget and state, counted from the same up() as the history. The
// figures are exact for this fleet: every app that is ever down is down the
// same hour a day, so one share of down time per window serves them all.
func runServe(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	f := fleet{}
	fs.IntVar(&f.apps, "apps", 10000, "apps")
	fs.IntVar(&f.objectives, "objectives", 1000, "objectives")
	addr := fs.String("addr", "127.0.0.1:9464", "listen address (loopback)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Addr: *addr, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		bw := bufio.NewWriterSize(w, 1<<16)
		f.write(bw, time.Now())
		bw.Flush()
	})}
	go func() {
		<-ctx.Done()
		srv.Shutdown(context.Background())
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

var burnWindows = []struct {
	name string
	d    time.Duration
}{{"5m", 5 * time.Minute}, {"30m", 30 * time.Minute}, {"1h", time.Hour}, {"2h", 2 * time.Hour},
	{"6h", 6 * time.Hour}, {"1d", 24 * time.Hour}, {"3d", 72 * time.Hour}}

// downShare is the share of [now-d, now) that an app that is ever down
// spends down, counted by the second.
func downShare(now time.Time, d time.Duration) float64 {
	var down time.Duration
	for t := now.Add(-d); t.Before(now); {
		next := t.Truncate(time.Hour).Add(time.Hour)
		if next.After(now) {
			next = now
		}
		if up(7, t) == 0 {
			down += next.Sub(t)
		}
		t = next
	}
	return down.Seconds() / d.Seconds()
}

const share = 0.001 // 1 - 99.9%

func (f fleet) write(w *bufio.Writer, now time.Time) {
	const id = `job="availmon",instance="availmon:9464"`
	w.WriteString("# TYPE availmon_up gauge\n")
	for i := range f.apps {
		fmt.Fprintf(w, "availmon_up{%s,app=%q,location=%q,group=%q} %g\n", id, f.app(i), f.location(i), f.group(i), up(i, now))
	}
	fmt.Fprintf(w, "availmon_scrape_interval_seconds{%s} 30\navailmon_last_cycle_timestamp_seconds{%s} %d\n", id, id, now.Unix())
	shares := make([]float64, len(burnWindows))
	for j, bw := range burnWindows {
		shares[j] = downShare(now, bw.d)
	}
	month := downShare(now, 30*24*time.Hour)
	for i := range f.objectives {
		o := f.objectiveAt(i)
		part := o.downPart()
		lbl := fmt.Sprintf("%s,objective=%q", id, o.name)
		for j, bw := range burnWindows {
			fmt.Fprintf(w, "availmon_objective_burn_rate{%s,window=%q} %g\n", lbl, bw.name, part*shares[j]/share)
		}
		remaining := 1 - part*month/share
		fmt.Fprintf(w, "availmon_objective_error_budget_remaining_ratio{%s} %g\n", lbl, remaining)
		fmt.Fprintf(w, "availmon_objective_error_budget_remaining_seconds{%s} %g\n", lbl, remaining*share*30*86400)
		fmt.Fprintf(w, "availmon_objective_target_ratio{%s} 0.999\navailmon_objective_attainment_ratio{%s} %g\n", lbl, lbl, 1-part*month)
	}
}
