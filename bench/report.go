package main

import (
	"fmt"
	"strings"
)

func markdown(rep report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# availmon benchmark results\n\n")
	fmt.Fprintf(&b, "- measured: `%s` on %s, %d CPUs\n", rep.Label, rep.When.Format("2006-01-02 15:04 UTC"), rep.CPUs)
	fmt.Fprintf(&b, "- command: `%s`; load: `%s` per endpoint, while cycles run\n", rep.Command, rep.Wrk)
	b.WriteString("- ceiling: a plain Go server writing a precomputed copy of availmon's answer (same status, headers, bytes)\n")
	b.WriteString("- ratio = availmon req/s / ceiling req/s; on a shared machine absolute req/s vary run to run, ratios less\n\n")
	for _, r := range rep.Runs {
		b.WriteString(markdownRun(r))
		b.WriteString("\n")
	}
	return b.String()
}

func markdownRun(r sizeRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %d apps in %d locations\n\n", r.Apps, r.Locations)
	if r.Warning != "" {
		fmt.Fprintf(&b, "Warning: after the history filled, %s.\n\n", r.Warning)
	}
	b.WriteString("| endpoint | body | availmon req/s | ceiling req/s | ratio | peak RSS so far |\n|---|---|---|---|---|---|\n")
	for _, row := range r.Rows {
		name := "`" + row.Name + "`"
		if row.Status != 200 {
			name += fmt.Sprintf(" (%d)", row.Status)
		}
		bad := ""
		if row.AvailmonBad > 0 {
			bad = fmt.Sprintf(" (%d non-2xx/3xx)", row.AvailmonBad)
		}
		fmt.Fprintf(&b, "| %s | %s | %.0f%s | %.0f | %.2f | %s |\n", name, size(row.Bytes), row.Availmon, bad, row.Ceiling, row.Ratio, mb(row.PeakRSS))
	}
	b.WriteString("\n| figure | value |\n|---|---|\n")
	if r.PastDays > 0 {
		placed := ""
		if r.PastRandom {
			placed = ", at random times"
		}
		fmt.Fprintf(&b, "| synthetic past (outages %g%s), as saved state | %d days, %s |\n", r.PastOutages, placed, r.PastDays, size(r.PastStateBytes))
	}
	fmt.Fprintf(&b, "| history filled (%d checks per app) after | %.0f s |\n", r.History, r.FillSeconds)
	if r.Objectives > 0 {
		fmt.Fprintf(&b, "| objectives | %d |\n", r.Objectives)
	}
	fmt.Fprintf(&b, "| cycle time without load, mean; max (%d cycles) | %.3f s; %.3f s |\n", r.CycleSamples, r.CycleSeconds, r.CycleMax)
	fmt.Fprintf(&b, "| cycle time, max under load | %.3f s |\n", r.CycleLoadMax)
	fmt.Fprintf(&b, "| availmon CPU per cycle without load (%d cycles) | %.3f s |\n", r.Cycles, r.CPUPerCycle)
	fmt.Fprintf(&b, "| Prometheus CPU per cycle without load | %.3f s |\n", r.PromCPU)
	fmt.Fprintf(&b, "| backend requests per cycle | %.1f |\n", r.Requests)
	fmt.Fprintf(&b, "| Prometheus alone on a cycle's %d queries: wall; CPU | %.3f s; %.3f s |\n", r.BackendQueries, r.BackendWall, r.BackendCPU)
	fmt.Fprintf(&b, "| the same, answers gzipped (not what availmon asks): wall; CPU | %.3f s; %.3f s |\n", r.BackendGzipWall, r.BackendGzipCPU)
	fmt.Fprintf(&b, "| state file; last save (of which cycles waited) | %s; %.3f s (%.3f s) |\n", size(int(r.StateBytes)), r.SaveSeconds, r.SaveLocked)
	fmt.Fprintf(&b, "| resident memory, steady (mean; max) | %s; %s |\n", mb(r.SteadyRSS), mb(r.SteadyRSSMax))
	fmt.Fprintf(&b, "| resident memory, peak under load | %s (%.2fx steady) |\n", mb(r.PeakRSS), r.PeakOverSteady)
	return b.String()
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func size(n int) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}
