package promtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Prepare runs fill on the server's data directory before the server
// starts, to put past data there (GenerateBlock).
func Prepare(fill func(tb testing.TB, dataDir string)) Option {
	return func(c *config) { c.prepare = append(c.prepare, fill) }
}

// GenerateBlock writes one TSDB block of series app_up-like gauges into
// dataDir with the blockgen command (its own module beside this file,
// which keeps Prometheus's tsdb package out of availmon's go.mod; see its
// doc for args). It runs in a process of its own, so that writing the
// block costs the test's process no memory. The first run compiles it.
func GenerateBlock(tb testing.TB, dataDir string, args ...string) {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", append([]string{"run", ".", "-dir", dataDir}, args...)...)
	cmd.Dir = filepath.Join(filepath.Dir(file), "blockgen")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("promtest: blockgen %v: %v\n%s", args, err, out)
	}
}

// PastBlock is Past written as one block by blockgen rather than by
// promtool: promtool writes a block per two hours and reads its whole
// input once for each, so that months of samples take it minutes, and
// the server then compacts hundreds of blocks. Every sample of the text
// must carry a timestamp (Unix seconds).
func PastBlock(openMetrics string) Option {
	return Prepare(func(tb testing.TB, dataDir string) {
		tb.Helper()
		file := filepath.Join(filepath.Dir(dataDir), "past-block.om")
		if err := os.WriteFile(file, []byte(openMetrics), 0o644); err != nil {
			tb.Fatalf("promtest: %v", err)
		}
		GenerateBlock(tb, dataDir, "-openmetrics", file)
	})
}
