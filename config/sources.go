package config

import (
	"fmt"
	"log/slog"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/httpprobe"
	"github.com/availmon/availmon/promsource"
)

// backends builds the source of every backend the file names: one per
// prometheus: entry, and a backend named "http" for the apps that have an
// http: probe. It is the one place the file's backends become sources.
func (c *Config) backends(logger *slog.Logger) ([]availmon.Backend, error) {
	var out []availmon.Backend
	for _, b := range c.Prometheus {
		src, err := promsource.New(promsource.Options{
			Name:             b.Name,
			URL:              b.URL,
			HTTPClientConfig: b.HTTPClientConfig,
			QueryTimeout:     c.Timeout,
			MaxResponseBytes: b.MaxResponseBytes,
			MaxQueryLength:   b.MaxQueryLength,
			ShardSeries:      b.ShardSeries,
			Logger:           logger,
		})
		if err != nil {
			return nil, fmt.Errorf("prometheus backend %q: %w", b.Name, err)
		}
		out = append(out, availmon.Backend{
			Name:      b.Name,
			URL:       b.URL,
			Source:    src,
			BatchSize: promsource.BatchSize,
		})
	}
	for _, a := range c.Apps {
		if a.HTTP == nil {
			continue
		}
		// One source for every probe: it shares one keep-alive transport,
		// and with a batch size of 1 each probe is a Check call of its own,
		// so the monitor's MaxParallel bounds probes and queries together.
		src, err := httpprobe.New(httpprobe.Options{MaxParallel: c.MaxParallel, Logger: logger})
		if err != nil {
			return nil, fmt.Errorf("http probes: %w", err)
		}
		return append(out, availmon.Backend{Name: httpBackendName, Source: src, BatchSize: 1}), nil
	}
	return out, nil
}

// monitorApp is the app as the monitor takes it, checked by the backend
// it names.
func (a App) monitorApp() availmon.App {
	app := availmon.App{
		Name:               a.Name,
		Location:           a.Location,
		Metric:             a.Metric,
		ResponseTimeMetric: a.ResponseTimeMetric,
		Backend:            a.Prometheus,
		Labels:             a.Labels,
		FailThreshold:      a.FailThreshold,
		SuccessThreshold:   a.SuccessThreshold,
	}
	if a.HTTP != nil {
		probe := *a.HTTP
		app.Settings, app.Backend = &probe, httpBackendName
	}
	return app
}
