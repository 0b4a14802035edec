package config

import (
	"reflect"
	"slices"
	"time"
)

// RestartNeeded lists the settings that differ between the configuration
// running (old) and a reloaded one (c) but that a running monitor cannot
// change: they are fixed when it is built. A reload reports them rather than
// ignore them silently. The apps, locations, backends and scrape_interval
// are not among them: they change at run time.
func (c *Config) RestartNeeded(old *Config) []string {
	var out []string
	differ := func(name string, a, b any) {
		if !reflect.DeepEqual(a, b) {
			out = append(out, name)
		}
	}
	// Without the key the timeout follows the interval at run time, so
	// only the key's own value matters.
	differ("scrape_timeout", old.setTimeout(), c.setTimeout())
	differ("max_parallel", old.MaxParallel, c.MaxParallel)
	differ("history_size", old.HistorySize, c.HistorySize)
	differ("log_level", old.LogLevel, c.LogLevel)
	type auth struct {
		hmac *HMAC
		open bool
	}
	differ("authentication", auth{old.HMAC, old.AllowUnauthenticatedWrites}, auth{c.HMAC, c.AllowUnauthenticatedWrites})
	differ("storage.path", old.Storage.Path, c.Storage.Path)
	differ("storage.save_interval", old.Storage.SaveInterval, c.Storage.SaveInterval)
	differ("storage.backfill", old.Storage.Backfill, c.Storage.Backfill)
	differ("storage.retention", old.Storage.Retention, c.Storage.Retention)
	differ("reports.time_zone", old.Reports.TimeZone, c.Reports.TimeZone)
	out = append(out, c.Controls.restartNeeded(&old.Controls)...)
	if !slices.Equal(old.WSOriginPatterns, c.WSOriginPatterns) {
		out = append(out, "websocket.allowed_origins")
	}
	return out
}

// setTimeout is scrape_timeout as the file gives it, 0 when it has none.
func (c *Config) setTimeout() time.Duration {
	if !c.TimeoutSet {
		return 0
	}
	return c.Timeout
}
