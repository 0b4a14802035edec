// Command blockgen writes a gauge's samples straight into one TSDB block,
// with Prometheus's own tsdb package, for benchmarks that need weeks of
// data for thousands of series: the promtool of Prometheus 2.42 writes a
// block per two hours and reads its whole input once per block (30 days
// of 10,000 series take it far too long), and the server then spends
// minutes compacting 360 blocks. One block of any length is written here
// in one pass.
//
// It is its own module, so that the tsdb package and what it needs stay
// out of availmon's go.mod; promtest.GenerateBlock runs it.
//
//	go run . -dir DATA -metric app_up -series 10000 -start 1700000000 -end 1702592000 -step 5m
//
// Series i is metric{app="app-%05d"}; its value is 0 for an hour from
// -down-hour:-down-minute (UTC) of every day when i % -down-every ==
// -down-offset, else 1.
//
// With -openmetrics FILE it writes the samples of an OpenMetrics text
// instead (what promtool tsdb create-blocks-from openmetrics reads, with a
// timestamp on every sample), also as one block.
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

func main() {
	dir := flag.String("dir", "", "data directory of the server")
	metric := flag.String("metric", "app_up", "metric name")
	n := flag.Int("series", 100, "number of series")
	start := flag.Int64("start", 0, "first sample, unix seconds")
	end := flag.Int64("end", 0, "last sample, unix seconds")
	step := flag.Duration("step", 5*time.Minute, "between samples")
	every := flag.Int("down-every", 10, "every how many series one is down an hour a day")
	offset := flag.Int("down-offset", 7, "which of them")
	hour := flag.Int("down-hour", 3, "the UTC hour its outage starts")
	minute := flag.Int("down-minute", 0, "the minute of that hour its outage starts")
	input := flag.String("openmetrics", "", "write the samples of this OpenMetrics file instead")
	flag.Parse()
	if *dir != "" && *input != "" {
		if err := writeOpenMetrics(*dir, *input); err != nil {
			fmt.Fprintln(os.Stderr, "blockgen:", err)
			os.Exit(1)
		}
		return
	}
	if *dir == "" || *end <= *start || *step <= 0 || *every <= 0 {
		fmt.Fprintln(os.Stderr, "blockgen: need -dir, -start < -end, -step > 0, -down-every > 0")
		os.Exit(2)
	}
	begin := *hour*60 + *minute
	value := func(i int, t time.Time) float64 {
		m := t.UTC().Hour()*60 + t.UTC().Minute()
		if i%*every == *offset && (m-begin+24*60)%(24*60) < 60 {
			return 0
		}
		return 1
	}
	if err := write(*dir, *metric, *n, time.Unix(*start, 0), time.Unix(*end, 0), *step, value); err != nil {
		fmt.Fprintln(os.Stderr, "blockgen:", err)
		os.Exit(1)
	}
}

func write(dir, metric string, n int, start, end time.Time, step time.Duration, value func(int, time.Time) float64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// One block over the whole span (its end is exclusive).
	w, err := tsdb.NewBlockWriter(slog.New(slog.NewTextHandler(io.Discard, nil)), dir, end.Sub(start).Milliseconds()+step.Milliseconds())
	if err != nil {
		return err
	}
	defer w.Close()
	// Time first: the head accepts samples within half its range of the
	// newest one only.
	ctx := context.Background()
	lbls := make([]labels.Labels, n)
	refs := make([]storage.SeriesRef, n)
	for i := range lbls {
		lbls[i] = labels.FromStrings(labels.MetricName, metric, "app", fmt.Sprintf("app-%05d", i))
	}
	for t := start; !t.After(end); t = t.Add(step) {
		app := w.Appender(ctx)
		for i := range lbls {
			if refs[i], err = app.Append(refs[i], lbls[i], t.UnixMilli(), value(i, t)); err != nil {
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
