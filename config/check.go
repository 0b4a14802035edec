package config

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/availmon/availmon"
)

// Summary counts what the configuration defines, as `availmon
// -check-config` prints it: "2 apps (1 HTTP probe), 1 location, 1
// Prometheus backend". It counts the Prometheus backends the file names,
// not the backend Options adds for HTTP probes, which the user never wrote.
func (c *Config) Summary() string {
	probes := 0
	for _, a := range c.Apps {
		if a.HTTP != nil {
			probes++
		}
	}
	apps := count(len(c.Apps), "app", "apps")
	if probes > 0 {
		apps += fmt.Sprintf(" (%s)", count(probes, "HTTP probe", "HTTP probes"))
	}
	s := fmt.Sprintf("%s, %s, %s", apps, count(len(c.Locations), "location", "locations"),
		count(len(c.Prometheus), "Prometheus backend", "Prometheus backends"))
	if len(c.Objectives) > 0 {
		s += ", " + count(len(c.Objectives), "objective", "objectives")
	}
	return s
}

// count says "1 app" or "2 apps".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// CheckDiscovery runs each discovery rule of m once (Monitor.CheckDiscovery)
// and writes a line per rule to w: how many apps it yields and in which
// locations, or why its query failed. It is `availmon -check-config
// -online`; the error is ErrDiscoveryFailed when a query failed.
func CheckDiscovery(ctx context.Context, m *availmon.Monitor, w io.Writer) error {
	var err error
	results := m.CheckDiscovery(ctx)
	if len(results) == 0 {
		fmt.Fprintln(w, "no discovery rules")
	}
	for _, r := range results {
		fmt.Fprintf(w, "discover %s (backend %s): ", r.Rule, r.Backend)
		if r.Err != nil {
			fmt.Fprintf(w, "query failed: %v\n", r.Err)
			err = ErrDiscoveryFailed
			continue
		}
		total := 0
		var locs []string
		for _, l := range slices.Sorted(maps.Keys(r.Apps)) {
			total += r.Apps[l]
			locs = append(locs, fmt.Sprintf("%s %d", l, r.Apps[l]))
		}
		fmt.Fprintf(w, "%d apps", total)
		if len(locs) > 0 {
			fmt.Fprintf(w, " (%s)", strings.Join(locs, ", "))
		}
		var skipped []string
		for _, why := range slices.Sorted(maps.Keys(r.Skipped)) {
			if n := r.Skipped[why]; n > 0 {
				skipped = append(skipped, fmt.Sprintf("%d %s", n, why))
			}
		}
		if len(skipped) > 0 {
			fmt.Fprintf(w, "; skipped %s", strings.Join(skipped, ", "))
		}
		if len(r.UnmappedValues) > 0 {
			fmt.Fprintf(w, "; location values mapped to no location: %q", r.UnmappedValues)
		}
		fmt.Fprintln(w)
	}
	return err
}
