package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const unitFile = "systemd/availmon.service"

// The unit passes systemd-analyze verify with nothing to say (verify exits
// 0 on an unknown key or a bad value and only prints it), and its
// hardening keeps systemd-analyze security's exposure at 2.0 or less of 10.
// verify checks that ExecStart's binary exists, so the checked copy names
// the binary the release built instead of /usr/local/bin/availmon.
func TestSystemdUnit(t *testing.T) {
	analyze := need(t, "systemd-analyze", "apt-get install -y systemd")
	unit, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"ExecReload=/bin/kill -HUP $MAINPID", "DynamicUser=yes", "StateDirectory=availmon",
		"ProtectSystem=strict", "NoNewPrivileges=yes", "-storage.path %S/availmon",
	} {
		if !strings.Contains(string(unit), want) {
			t.Errorf("%s lacks %s", unitFile, want)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "availmon.service")
	checked := strings.ReplaceAll(string(unit), "/usr/local/bin/availmon", release(t).native())
	if err := os.WriteFile(path, []byte(checked), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", "--man=no", path).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	out, err = exec.Command(analyze, "security", "--offline=yes", "--no-pager", path).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	exposure := exposureLevel(t, string(out))
	t.Logf("systemd-analyze security: exposure %.1f of 10", exposure)
	if exposure > 2.0 {
		t.Errorf("exposure %.1f, want 2.0 or less:\n%s", exposure, out)
	}
}

// exposureLevel reads "Overall exposure level for availmon.service: 1.4 OK".
func exposureLevel(t *testing.T, out string) float64 {
	t.Helper()
	_, after, ok := strings.Cut(out, "Overall exposure level for availmon.service: ")
	f := strings.Fields(after)
	if !ok || len(f) == 0 {
		t.Fatalf("no exposure level in:\n%s", out)
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		t.Fatalf("exposure level %q: %v", f[0], err)
	}
	return v
}
