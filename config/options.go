package config

import (
	"fmt"
	"log/slog"
	"slices"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/period"
)

// Options builds the availmon.Options the configuration describes: a
// Prometheus source per backend, and a backend named "http" with an
// httpprobe.Source for the apps that have an http: probe; an *hmac.Verifier as
// the Authenticator when authentication.hmac is enabled. logger is given to
// the options and to every source; nil discards. The caller adds what the
// file does not say: Version, Registerer, Gatherer, Clock.
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
		Retention:        c.Storage.Retention,
		ExportWindows:    c.ExportWindows,
	}
	if c.Reports.TimeZone != "" {
		loc, err := period.LoadLocation(c.Reports.TimeZone)
		if err != nil {
			return availmon.Options{}, fmt.Errorf("reports.time_zone: %w", err)
		}
		opts.TimeZone = loc
	}
	backends, err := c.backends(logger)
	if err != nil {
		return availmon.Options{}, err
	}
	opts.Backends = backends
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
	for _, a := range c.Apps {
		opts.Apps = append(opts.Apps, a.monitorApp())
	}
	c.Controls.apply(&opts)
	opts.Objectives = slices.Clone(c.Objectives)
	return opts, nil
}
