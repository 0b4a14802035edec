package deploy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// releaseDirEnv names a directory that `go run ./release -build DIR/build
// -dist DIR/dist` has filled; CI sets it so that the tests check the
// release CI built. Without it the tests build the release for this
// machine's platform once.
const releaseDirEnv = "AVAILMON_RELEASE_DIR"

// srcDir is the top of availmon's source tree, whose module this one is
// nested in.
const srcDir = ".."

// need returns the path of a program the test needs; without it the test
// skips, except under CI, where it must run.
func need(t *testing.T, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		skipOrFail(t, fmt.Sprintf("%s is not installed (%s)", name, install))
	}
	return p
}

// skipOrFail skips the test, or fails it under CI, which must run it.
func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why + "; CI is set, so this test must run")
	}
	t.Skip(why)
}

// built is a release: its binaries per OS-ARCH and its dist directory.
type built struct {
	build, dist string
	version     string
}

// binary is the path of the release's binary for goos/goarch.
func (b built) binary(goos, goarch string) string {
	name := "availmon"
	if goos == "windows" {
		name += ".exe"
	}
	return filepath.Join(b.build, goos+"-"+goarch, name)
}

// native is the release's binary for this machine.
func (b built) native() string { return b.binary(runtime.GOOS, runtime.GOARCH) }

var (
	releaseOnce sync.Once
	releaseOut  built
	releaseErr  error
	releaseTmp  string
)

// release returns the release that CI built, or builds one for this
// machine's platform with the version "v0.0.0-test".
func release(t *testing.T) built {
	t.Helper()
	if testing.Short() {
		t.Skip("builds availmon; skipped with -short")
	}
	releaseOnce.Do(func() {
		dir := os.Getenv(releaseDirEnv)
		if dir == "" {
			dir, releaseErr = os.MkdirTemp("", "availmon-release")
			if releaseErr != nil {
				return
			}
			releaseTmp = dir
			cmd := exec.Command("go", "run", "./release", "-version", "v0.0.0-test",
				"-platforms", runtime.GOOS+"/"+runtime.GOARCH,
				"-src", srcDir, "-build", filepath.Join(dir, "build"), "-dist", filepath.Join(dir, "dist"))
			if out, err := cmd.CombinedOutput(); err != nil {
				releaseErr = fmt.Errorf("go run ./release: %v\n%s", err, out)
				return
			}
		}
		releaseOut, releaseErr = readRelease(dir)
	})
	if releaseErr != nil {
		t.Fatal(releaseErr)
	}
	return releaseOut
}

// readRelease finds the version of the release in dir from the name of
// its archives (availmon-VERSION.OS-ARCH.tar.gz).
func readRelease(dir string) (built, error) {
	b := built{build: filepath.Join(dir, "build"), dist: filepath.Join(dir, "dist")}
	entries, err := os.ReadDir(b.dist)
	if err != nil {
		return b, err
	}
	for _, e := range entries {
		if v, _, ok := archiveName(e.Name()); ok {
			b.version = v
			return b, nil
		}
	}
	return b, fmt.Errorf("%s holds no availmon-VERSION.OS-ARCH archive", b.dist)
}

// archiveName splits availmon-VERSION.OS-ARCH.tar.gz (or .zip) into the
// version and OS-ARCH; the version may hold dots, OS-ARCH does not.
func archiveName(name string) (version, platform string, ok bool) {
	rest, ok := strings.CutPrefix(name, "availmon-")
	if !ok {
		return "", "", false
	}
	if r, gz := strings.CutSuffix(rest, ".tar.gz"); gz {
		rest = r
	} else if rest, ok = strings.CutSuffix(rest, ".zip"); !ok {
		return "", "", false
	}
	i := strings.LastIndex(rest, ".")
	if i <= 0 {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}

// TestMain removes the release the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if releaseTmp != "" {
		os.RemoveAll(releaseTmp)
	}
	os.Exit(code)
}
