package web_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The page's own unit tests (ui/test/unit, node --test): its logic that
// needs no browser, such as the store's counts and what it says of
// maintenance windows. TZ is fixed so that "the same day" is the same
// wherever the test runs.
func TestScriptUnits(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node not found; CI is set, so the page's unit tests must run")
		}
		t.Skip("node not found")
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	files, err := filepath.Glob(filepath.Join("ui", "test", "unit", "*.test.mjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no unit tests in ui/test/unit (%v)", err)
	}
	for i, f := range files {
		files[i], _ = filepath.Rel("ui", f)
	}
	cmd := exec.CommandContext(ctx, node, append([]string{"--test"}, files...)...)
	cmd.Dir = "ui"
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test %v: %v\n%s", files, err, out)
	}
}
