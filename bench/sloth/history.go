package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"
)

// runHistory writes one TSDB block of availmon_up for every app, as a
// Prometheus that scraped availmon every -step for -days would hold, in one
// pass (promtool writes a block per two hours and rereads its input for
// each).
func runHistory(args []string) error {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	f := fleet{}
	fs.IntVar(&f.apps, "apps", 10000, "apps")
	dir := fs.String("dir", "", "data directory of the Prometheus")
	days := fs.Int("days", 30, "days of history")
	step := fs.Duration("step", 30*time.Second, "scrape interval")
	endUnix := fs.Int64("end", time.Now().Unix(), "last sample, unix seconds")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *days <= 0 || *step <= 0 {
		return fmt.Errorf("history: need -dir, -days > 0, -step > 0")
	}
	end := time.Unix(*endUnix, 0).Truncate(*step)
	start := end.AddDate(0, 0, -*days)
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	w, err := tsdb.NewBlockWriter(slog.New(slog.NewTextHandler(io.Discard, nil)), *dir, end.Sub(start).Milliseconds()+step.Milliseconds())
	if err != nil {
		return err
	}
	defer w.Close()
	ctx := context.Background()
	lbls := make([]labels.Labels, f.apps)
	refs := make([]storage.SeriesRef, f.apps)
	for i := range lbls {
		lbls[i] = labels.FromStrings(labels.MetricName, "availmon_up", "job", "availmon", "instance", "availmon:9464",
			"app", f.app(i), "location", f.location(i), "group", f.group(i))
	}
	// Time first: the block writer's head takes samples within half its
	// range of the newest one only.
	for t := start; !t.After(end); t = t.Add(*step) {
		app := w.Appender(ctx)
		for i := range lbls {
			if refs[i], err = app.Append(refs[i], lbls[i], t.UnixMilli(), up(i, t)); err != nil {
				return fmt.Errorf("series %v at %s: %w", lbls[i], t, err)
			}
		}
		if err := app.Commit(); err != nil {
			return err
		}
	}
	_, err = w.Flush(ctx)
	return err
}
