package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"
)

type sample struct {
	series int
	t      int64 // milliseconds
	v      float64
}

// writeOpenMetrics writes every sample of the OpenMetrics file at path
// into one block in dir. The samples are appended in time order, whatever
// the file's order: the block writer's head takes samples within half its
// range of the newest one only.
func writeOpenMetrics(dir, path string) error {
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	series, samples, err := parseOpenMetrics(text)
	if err != nil {
		return err
	}
	if len(samples) == 0 {
		return errors.New("no samples in " + path)
	}
	sort.SliceStable(samples, func(i, j int) bool { return samples[i].t < samples[j].t })
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	span := samples[len(samples)-1].t - samples[0].t + 1
	w, err := tsdb.NewBlockWriter(slog.New(slog.NewTextHandler(io.Discard, nil)), dir, span)
	if err != nil {
		return err
	}
	defer w.Close()
	ctx := context.Background()
	refs := make([]storage.SeriesRef, len(series))
	app := w.Appender(ctx)
	for i, s := range samples {
		if refs[s.series], err = app.Append(refs[s.series], series[s.series], s.t, s.v); err != nil {
			return fmt.Errorf("series %v at %d: %w", series[s.series], s.t, err)
		}
		// Commit now and then, to keep the appender's batch small.
		if i%100000 == 99999 {
			if err := app.Commit(); err != nil {
				return err
			}
			app = w.Appender(ctx)
		}
	}
	if err := app.Commit(); err != nil {
		return err
	}
	_, err = w.Flush(ctx)
	return err
}

// parseOpenMetrics reads the series and samples of an OpenMetrics text
// with Prometheus's own parser; every sample must carry a timestamp.
func parseOpenMetrics(text []byte) ([]labels.Labels, []sample, error) {
	p := textparse.NewOpenMetricsParser(text, labels.NewSymbolTable())
	index := map[string]int{}
	var series []labels.Labels
	var samples []sample
	for {
		e, err := p.Next()
		if errors.Is(err, io.EOF) {
			return series, samples, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if e != textparse.EntrySeries {
			continue
		}
		raw, ts, v := p.Series()
		if ts == nil {
			return nil, nil, fmt.Errorf("sample of %s without a timestamp", raw)
		}
		i, ok := index[string(raw)]
		if !ok {
			var l labels.Labels
			p.Labels(&l)
			i = len(series)
			index[string(raw)] = i
			series = append(series, l)
		}
		samples = append(samples, sample{series: i, t: *ts, v: v})
	}
}
