package promtest

import (
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
