package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/availmon/availmon/filestore"
)

// runReportBinary runs `availmon report` of the real binary and returns
// its exit code, standard output and standard error.
func runReportBinary(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, append([]string{"report"}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// dirFiles lists dir's files with their sizes and times: what a reader
// must leave as it is.
func dirFiles(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range es {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, e.Name(), fi.ModTime(), fi.Size())
	}
	return b.String()
}

// `availmon report` prints the same from the state directory of a stopped
// binary and of one running on it, and changes nothing there.
func TestReportStoppedAndRunning(t *testing.T) {
	bin := binary(t)
	cfg, dir := storageConfig(t, "1h"), t.TempDir()
	p := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	var last string
	waitFor(t, "three checks of web", 30*time.Second, func() bool {
		a := getJSON[appAnswer](t, p.base+"/api/apps/web")
		if a.LastCheck != nil {
			last = *a.LastCheck
		}
		return len(a.History) >= 3
	})
	p.stop(t, syscall.SIGTERM)
	// The month of a check the binary made: the system clock read after
	// it stopped may already be in the next month, which holds none.
	checked, err := time.Parse(time.RFC3339, last)
	if err != nil {
		t.Fatalf("web's last check %q: %v", last, err)
	}
	month := checked.UTC().Format("2006-01")

	files := dirFiles(t, dir)
	code, stopped, stderr := runReportBinary(t, bin, "-period", month, "-format", "json", "-state-dir", dir)
	if code != 0 {
		t.Fatalf("report of the stopped binary: exit %d: %s", code, stderr)
	}
	var rep struct {
		Period string
		Items  []struct {
			Kind, Name   string
			Availability *float64
			Outages      int
		}
	}
	if err := json.Unmarshal([]byte(stopped), &rep); err != nil {
		t.Fatalf("%v: %s", err, stopped)
	}
	names := map[string]bool{}
	for _, it := range rep.Items {
		names[it.Kind+"/"+it.Name] = it.Availability != nil
	}
	if rep.Period != month || !names["app/web"] || !names["app/broken"] || !names["location/Tel Aviv"] {
		t.Errorf("report: %s", stopped)
	}

	q := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	waitFor(t, "a check of the restarted binary", 30*time.Second, func() bool {
		return getJSON[appAnswer](t, q.base+"/api/apps/web").LastCheck != nil
	})
	for _, args := range [][]string{{"-state-dir", dir}, {"-config", cfg, "-tz", "UTC"}} {
		if cfgArgs := args[0] == "-config"; cfgArgs {
			// The configuration names the directory the test overrode.
			args = []string{"-config", writeTemp(t, strings.Replace(readFile(t, cfg), "storage:\n", "storage:\n  path: "+dir+"\n", 1))}
		}
		code, running, stderr := runReportBinary(t, bin, append([]string{"-period", month, "-format", "json"}, args...)...)
		if code != 0 || running != stopped {
			t.Errorf("report %v of the running binary: exit %d %s\n%s\nwant\n%s", args, code, stderr, running, stopped)
		}
	}
	if after := dirFiles(t, dir); after != files {
		t.Errorf("the state directory changed:\n%s\nwas\n%s", after, files)
	}
	if code, _ := get(t, q.base+"/health"); code != 200 {
		t.Errorf("the running binary's /health = %d", code)
	}
	code, out, _ := runReportBinary(t, bin, "-period", month, "-format", "csv", "-state-dir", dir)
	if recs, err := csv.NewReader(strings.NewReader(out)).ReadAll(); code != 0 || err != nil || len(recs) != len(rep.Items)+1 {
		t.Errorf("CSV: exit %d, %v, %d records: %s", code, err, len(recs), out)
	}
	code, out, _ = runReportBinary(t, bin, "-period", month, "-state-dir", dir)
	if code != 0 || !strings.Contains(out, "AVAILABILITY") || !strings.Contains(out, "broken") {
		t.Errorf("table: exit %d: %s", code, out)
	}
}

// Bad periods, formats, zones and directories: exit 1 and a message that
// says what is accepted; bad flags exit 2.
func TestReportBinaryBadInput(t *testing.T) {
	bin := binary(t)
	empty := t.TempDir()
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-period", "2026-13", "-state-dir", empty}, 1, "allowed forms"},
		{[]string{"-period", "2026-11", "-format", "xml", "-state-dir", empty}, 1, "allowed formats"},
		{[]string{"-period", "2026-11", "-tz", "Mars/Olympus", "-state-dir", empty}, 1, "IANA time zone"},
		{[]string{"-period", "2026-11", "-state-dir", empty}, 1, "no such file"},
		{[]string{"-period", "2026-11"}, 1, "-state-dir or -config"},
		{[]string{"-state-dir", empty}, 1, "-period"},
		{[]string{"-bogus"}, 2, "flag provided but not defined"},
	} {
		code, _, stderr := runReportBinary(t, bin, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("report %v: exit %d %q, want %d mentioning %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(empty, filestore.FileName)); err == nil {
		t.Error("report made a state file")
	}
}
