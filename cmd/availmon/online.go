package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/availmon/availmon"
)

// checkOnline runs each discovery rule's query once and prints, per rule,
// how many apps it yields and in which locations. It returns exitError when
// a query failed.
func checkOnline(ctx context.Context, m *availmon.Monitor, stdout io.Writer) int {
	code := exitOK
	results := m.CheckDiscovery(ctx)
	if len(results) == 0 {
		fmt.Fprintln(stdout, "no discovery rules")
	}
	for _, r := range results {
		fmt.Fprintf(stdout, "discover %s (backend %s): ", r.Rule, r.Backend)
		if r.Err != nil {
			fmt.Fprintf(stdout, "query failed: %v\n", r.Err)
			code = exitError
			continue
		}
		total := 0
		var locs []string
		for _, l := range slices.Sorted(maps.Keys(r.Apps)) {
			total += r.Apps[l]
			locs = append(locs, fmt.Sprintf("%s %d", l, r.Apps[l]))
		}
		fmt.Fprintf(stdout, "%d apps", total)
		if len(locs) > 0 {
			fmt.Fprintf(stdout, " (%s)", strings.Join(locs, ", "))
		}
		var skipped []string
		for _, why := range slices.Sorted(maps.Keys(r.Skipped)) {
			if n := r.Skipped[why]; n > 0 {
				skipped = append(skipped, fmt.Sprintf("%d %s", n, why))
			}
		}
		if len(skipped) > 0 {
			fmt.Fprintf(stdout, "; skipped %s", strings.Join(skipped, ", "))
		}
		if len(r.UnmappedValues) > 0 {
			fmt.Fprintf(stdout, "; location values mapped to no location: %q", r.UnmappedValues)
		}
		fmt.Fprintln(stdout)
	}
	return code
}
