package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// configMap is a directory laid out as Kubernetes mounts a ConfigMap:
// availmon.yaml -> ..data/availmon.yaml, ..data -> a directory of the
// current version, swapped by renaming a new ..data link over the old one.
type configMap struct {
	t   *testing.T
	dir string
	n   int
}

func newConfigMap(t *testing.T) *configMap {
	c := &configMap{t: t, dir: t.TempDir()}
	if err := os.Symlink(filepath.Join("..data", "availmon.yaml"), c.path()); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *configMap) path() string { return filepath.Join(c.dir, "availmon.yaml") }

// swap publishes a new version whose availmon.yaml make creates.
func (c *configMap) swap(make func(path string) error) {
	c.t.Helper()
	c.n++
	version := filepath.Join(c.dir, "..v"+string(rune('0'+c.n)))
	if err := os.Mkdir(version, 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := make(filepath.Join(version, "availmon.yaml")); err != nil {
		skipOrFail(c.t, fmt.Sprintf("cannot make the file: %v", err))
	}
	tmp := filepath.Join(c.dir, "..data_tmp")
	if err := os.Symlink(filepath.Base(version), tmp); err != nil {
		c.t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(c.dir, "..data")); err != nil {
		c.t.Fatal(err)
	}
}

func withBody(body string) func(string) error {
	return func(path string) error { return os.WriteFile(path, []byte(body), 0o600) }
}

func fifo(path string) error { return syscall.Mkfifo(path, 0o600) }

// The real binary reads its file through ConfigMap symlinks; a version
// whose file is a FIFO fails its SIGHUP reloads at once with a clear error
// (opening a FIFO would wait for a writer for ever, holding up every later
// reload and SIGTERM); a good version after it reloads, and SIGTERM exits.
func TestReloadRefusesFIFO(t *testing.T) {
	good := readFile(t, writeConfig(t, ""))
	cm := newConfigMap(t)
	cm.swap(withBody(good))
	r := startBinary(t, "-config", cm.path())
	waitFor(t, "the two apps", 30*time.Second, func() bool { return len(apps(t, r.base)) == 2 })

	cm.swap(fifo)
	const refused = "not a regular file but a named pipe (FIFO)"
	for i := 1; i <= 2; i++ {
		if err := r.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the refused reload", 30*time.Second, func() bool { return strings.Count(r.log.String(), refused) >= i })
	}
	if v, _ := metricValue(t, r.base, "availmon_config_last_reload_successful"); v != 0 {
		t.Errorf("availmon_config_last_reload_successful %v after a FIFO, want 0", v)
	}

	cm.swap(withBody(strings.Replace(good, "apps:\n", "apps:\n  - {name: extra, location: Tel Aviv, metric: 'up'}\n", 1)))
	if err := r.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the app the good file adds", 30*time.Second, func() bool { _, ok := apps(t, r.base)["extra"]; return ok })
	if err := r.stop(); err != nil {
		t.Errorf("exit after SIGTERM: %v; log:\n%s", err, r.log.String())
	}
	if !strings.Contains(r.log.String(), "shutdown complete") {
		t.Errorf("no shutdown complete in the log:\n%s", r.log.String())
	}
}

// SIGHUP applies the file's maintenance windows and fail_threshold to the
// real binary without asking for a restart; a window naming an app that the
// same reload removes fails the reload with its line, and nothing changes.
func TestReloadMaintenanceSIGHUP(t *testing.T) {
	path := writeConfig(t, "")
	base := readFile(t, path)
	writeFile(t, path, base+"maintenance:\n  - {name: first, app: checkout, duration: 1h}\n")
	r := startBinary(t, "-config", path)
	windows := func() string { _, body := get(t, r.base+"/api/maintenance"); return body }
	hup := func() {
		t.Helper()
		if err := r.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the first window", 30*time.Second, func() bool { return strings.Contains(windows(), `"id":"first"`) })

	writeFile(t, path, base+"fail_threshold: 3\nmaintenance:\n  - {name: second, app: homepage, duration: 2h}\n")
	hup()
	waitFor(t, "the second window", 30*time.Second, func() bool {
		w := windows()
		return strings.Contains(w, `"id":"second"`) && !strings.Contains(w, `"id":"first"`)
	})
	waitFor(t, "the reload's log line", 30*time.Second, func() bool { return strings.Contains(r.log.String(), `msg="configuration reloaded"`) })
	if strings.Contains(r.log.String(), "takes effect only after a restart") {
		t.Errorf("a reload of maintenance and fail_threshold asks for a restart:\n%s", r.log.String())
	}

	i := strings.Index(base, "  - name: homepage")
	if i < 0 {
		t.Fatalf("writeConfig has no homepage app:\n%s", base)
	}
	withoutHomepage := base[:i]
	writeFile(t, path, withoutHomepage+"maintenance:\n  - {name: second, app: homepage, duration: 2h}\n")
	hup()
	line := strings.Count(withoutHomepage, "\n") + 2
	want := fmt.Sprintf(`availmon.yaml:%d: maintenance window \"second\": no app is named \"homepage\"`, line)
	waitFor(t, "the refused reload", 30*time.Second, func() bool { return strings.Contains(r.log.String(), want) })
	if w := windows(); !strings.Contains(w, `"id":"second"`) || len(apps(t, r.base)) != 2 {
		t.Errorf("a refused reload changed the windows or apps: %s %v", w, apps(t, r.base))
	}
}
