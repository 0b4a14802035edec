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
