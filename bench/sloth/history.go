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
// each). With -record-step it also writes, every record-step, Sloth's
// 5-minute SLI recording of every objective, as Sloth's rules would have
// recorded it over those days: Sloth's 30-day ratio reads 30 days of it, so
// without them Sloth's rules would cost less than they do once running.
func runHistory(args []string) error {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	f := fleet{}
	fs.IntVar(&f.apps, "apps", 10000, "apps")
	fs.IntVar(&f.objectives, "objectives", 1000, "objectives (for -record-step)")
	recordStep := fs.Duration("record-step", 0, "interval of Sloth's 5m SLI recordings to write (0: none)")
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
	recs := make([]recording, f.objectives)
	for i := range recs {
		o := f.objectiveAt(i)
		recs[i] = recording{part: o.downPart(), lbls: labels.FromStrings(labels.MetricName, "slo:sli_error:ratio_rate5m",
			"sloth_id", "availmon-"+o.name, "sloth_service", "availmon", "sloth_slo", o.name, "sloth_window", "5m")}
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
		if *recordStep > 0 && t.Sub(start)%*recordStep < *step {
			if err := appendRecordings(app, f, recs, t); err != nil {
				return err
			}
		}
		if err := app.Commit(); err != nil {
			return err
		}
	}
	_, err = w.Flush(ctx)
	return err
}

// recording is one objective's series of Sloth's 5m SLI recording.
type recording struct {
	lbls labels.Labels
	ref  storage.SeriesRef
	part float64
}

// appendRecordings appends every objective's 5m error ratio at t, what
// Sloth's rule (1 - avg(avg_over_time(availmon_up{...}[5m]))) gives.
func appendRecordings(app storage.Appender, f fleet, recs []recording, t time.Time) error {
	share := downShare(t, 5*time.Minute)
	var err error
	for i := range recs {
		if recs[i].ref, err = app.Append(recs[i].ref, recs[i].lbls, t.UnixMilli(), recs[i].part*share); err != nil {
			return fmt.Errorf("series %v at %s: %w", recs[i].lbls, t, err)
		}
	}
	return nil
}
