package promtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Promtool is the binary that writes past data into a data directory.
const Promtool = "promtool"

// Past writes the samples of an OpenMetrics text (ending in "# EOF") into
// the server's data directory before it starts, with promtool tsdb
// create-blocks-from openmetrics, so that a test can have hours or days of
// history without waiting for them. Timestamps are Unix seconds.
func Past(openMetrics string) Option {
	return func(c *config) { c.past = append(c.past, openMetrics) }
}

func (c config) writePast(tb testing.TB, dataDir string) {
	tb.Helper()
	if len(c.past) == 0 {
		return
	}
	bin, err := exec.LookPath(Promtool)
	if err != nil {
		msg := fmt.Sprintf("promtest: the %q binary is not installed (it comes with prometheus): %v", Promtool, err)
		if os.Getenv("CI") != "" {
			tb.Fatal(msg + "; CI is set, so the integration tests must run")
		}
		tb.Skip(msg)
	}
	for i, text := range c.past {
		file := filepath.Join(filepath.Dir(dataDir), fmt.Sprintf("past-%d.om", i))
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			tb.Fatalf("promtest: %v", err)
		}
		out, err := exec.Command(bin, "tsdb", "create-blocks-from", "openmetrics", file, dataDir).CombinedOutput()
		if err != nil {
			tb.Fatalf("promtest: promtool tsdb create-blocks-from openmetrics: %v\n%s", err, out)
		}
	}
}

// OpenMetrics writes a gauge's samples as OpenMetrics text for Past: one
// line per sample of each series, every step from start to end inclusive,
// valued by value(series, t).
func OpenMetrics(metric string, series []string, start, end time.Time, step time.Duration, value func(series string, t time.Time) float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# TYPE %s gauge\n", metric)
	for _, s := range series {
		for t := start; !t.After(end); t = t.Add(step) {
			fmt.Fprintf(&b, "%s{%s} %g %d\n", metric, s, value(s, t), t.Unix())
		}
	}
	b.WriteString("# EOF\n")
	return b.String()
}
