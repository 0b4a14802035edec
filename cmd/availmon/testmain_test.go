package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain removes the binary that binary() built once for the package's
// tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// skipOrFail skips the test when this machine lacks something it needs, or
// fails it under CI (the CI environment variable set), which must run it.
func skipOrFail(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why + "; CI is set, so this test must run")
	}
	t.Skip(why)
}
