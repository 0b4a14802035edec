package config

import (
	"fmt"
	"log/slog"

	"github.com/availmon/availmon"
)

// Options builds the availmon.Options the configuration describes: a
// Prometheus source per backend. logger is given to the options and to every
// source; nil discards. The caller adds what the file does not say: Version,
// Registerer, Gatherer, Clock.
func (c *Config) Options(logger *slog.Logger) (availmon.Options, error) {
	opts := availmon.Options{
		Interval:    c.Interval,
		Timeout:     c.Timeout,
		MaxParallel: c.MaxParallel,
		HistorySize: c.HistorySize,
		LogLevel:    c.LogLevel,
		Logger:      logger,
		Locations:   append([]availmon.Location(nil), c.Locations...),
	}
	for _, b := range c.Prometheus {
		src, err := availmon.NewPrometheusSource(availmon.PrometheusOptions{
			Name:             b.Name,
			URL:              b.URL,
			HTTPClientConfig: b.HTTPClientConfig,
			QueryTimeout:     c.Timeout,
			Logger:           logger,
		})
		if err != nil {
			return availmon.Options{}, fmt.Errorf("prometheus backend %q: %w", b.Name, err)
		}
		opts.Backends = append(opts.Backends, availmon.Backend{
			Name:      b.Name,
			URL:       b.URL,
			Source:    src,
			BatchSize: availmon.PrometheusBatchSize,
		})
	}
	for _, a := range c.Apps {
		opts.Apps = append(opts.Apps, availmon.App{
			Name:               a.Name,
			Location:           a.Location,
			Metric:             a.Metric,
			ResponseTimeMetric: a.ResponseTimeMetric,
			Backend:            a.Prometheus,
		})
	}
	return opts, nil
}
