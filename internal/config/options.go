package config

import (
	"fmt"
	"log/slog"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/httpprobe"
	"github.com/availmon/availmon/promsource"
)

// Options builds the availmon.Options the configuration describes: a
// Prometheus source per backend, and a backend named "http" with an
// httpprobe.Source for the apps that have an http: probe; an *hmac.Verifier as
// the Authenticator when authentication.hmac is enabled. logger is given to the options and to every
// source; nil discards. The caller adds what the file does not say: Version,
// Registerer, Gatherer, Clock.
func (c *Config) Options(logger *slog.Logger) (availmon.Options, error) {
	opts := availmon.Options{
		Interval: c.Interval,
		// Without scrape_timeout the monitor's timeout follows the
		// interval, also one changed at run time.
		Timeout:     c.setTimeout(),
		MaxParallel: c.MaxParallel,
		HistorySize: c.HistorySize,
		LogLevel:    c.LogLevel,
		Logger:      logger,
		Locations:   append([]availmon.Location(nil), c.Locations...),
		Discover:    append([]availmon.DiscoveryRule(nil), c.Discover...),

		WSOriginPatterns: c.WSOriginPatterns,
	}
	for _, b := range c.Prometheus {
		src, err := promsource.New(promsource.Options{
			Name:             b.Name,
			URL:              b.URL,
			HTTPClientConfig: b.HTTPClientConfig,
			QueryTimeout:     c.Timeout,
			MaxResponseBytes: b.MaxResponseBytes,
			MaxQueryLength:   b.MaxQueryLength,
			Logger:           logger,
		})
		if err != nil {
			return availmon.Options{}, fmt.Errorf("prometheus backend %q: %w", b.Name, err)
		}
		opts.Backends = append(opts.Backends, availmon.Backend{
			Name:      b.Name,
			URL:       b.URL,
			Source:    src,
			BatchSize: promsource.BatchSize,
		})
	}
	if c.HMAC != nil {
		v, err := hmac.NewVerifier(hmac.VerifierOptions{
			Secrets:                 [][]byte{c.HMAC.Secret},
			SkewTolerance:           c.HMAC.SkewTolerance,
			DisableReplayProtection: !c.HMAC.ReplayProtection,
			Logger:                  logger,
			Debug:                   c.HMAC.Debug,
			ReplayFile:              c.ReplayFile,
		})
		if err != nil {
			return availmon.Options{}, fmt.Errorf("authentication.hmac: %w", err)
		}
		opts.Authenticator, opts.ProtectReads = v, c.HMAC.ProtectReads
	}
	opts.AllowUnauthenticatedWrites = c.AllowUnauthenticatedWrites
	probes := false
	for _, a := range c.Apps {
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
			probes = true
		}
		opts.Apps = append(opts.Apps, app)
	}
	c.Controls.apply(&opts)
	if probes {
		// One source for every probe: it shares one keep-alive transport,
		// and with a batch size of 1 each probe is a Check call of its own,
		// so the monitor's MaxParallel bounds probes and queries together.
		src, err := httpprobe.New(httpprobe.Options{MaxParallel: c.MaxParallel, Logger: logger})
		if err != nil {
			return availmon.Options{}, fmt.Errorf("http probes: %w", err)
		}
		opts.Backends = append(opts.Backends, availmon.Backend{Name: httpBackendName, Source: src, BatchSize: 1})
	}
	return opts, nil
}
