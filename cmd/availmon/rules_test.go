package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/availmon/availmon/promexport"
	"go.yaml.in/yaml/v3"
)

// promtool finds the promtool binary; without it the test skips, except
// under CI, where it must run.
func promtool(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		msg := "promtool is not installed (apt-get install -y prometheus)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI is set, so this test must run")
		}
		t.Skip(msg)
	}
	return bin
}

// TestRulesPromtool: `availmon rules` passes promtool check rules, and the
// unit tests of testdata/rules_test.yml (an app down for -for fires, one in
// maintenance does not, a degraded service, a stalled availmon) pass with
// promtool test rules.
func TestRulesPromtool(t *testing.T) {
	bin := promtool(t)
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"rules", "-for", "5m"}, &out, &errb, nil); code != exitOK {
		t.Fatalf("availmon rules: exit %d: %s", code, errb.String())
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rules.yml"), out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	unit, err := os.ReadFile("testdata/rules_test.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules_test.yml"), unit, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check", "rules", "rules.yml"}, {"test", "rules", "rules_test.yml"}} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
}

func TestRulesFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"rules", "-for", "2m", "-job", "status"}, &out, &errb, nil); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var f struct {
		Groups []struct {
			Rules []struct{ Alert, Expr, For string }
		}
	}
	if err := yaml.Unmarshal(out.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			found[r.Alert] = r.For + " " + r.Expr
		}
	}
	if !strings.HasPrefix(found["AvailmonAppDown"], "2m ") || !strings.Contains(found["AvailmonNotScraped"], `up{job="status"}`) {
		t.Errorf("rules: %v", found)
	}
	for _, args := range [][]string{{"rules", "-for", "0s"}, {"rules", "-for", "x"}, {"rules", "-job", ""}, {"rules", "extra"}, {"rules", "-nope"}} {
		errb.Reset()
		if code := run(context.Background(), args, &out, &errb, nil); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
	if _, err := promexport.Rules(promexport.RuleOptions{AppDownFor: -1}); err == nil {
		t.Error("Rules with a negative duration: no error")
	}
}
