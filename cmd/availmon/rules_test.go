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
		skipOrFail(t, "promtool is not installed (apt-get install -y prometheus)")
	}
	return bin
}

// promtoolRuleFiles are the rule files the promtool unit tests of
// testdata/rules*_test.yml read, and the arguments of `availmon rules` that
// write each. .ci/run writes the same.
var promtoolRuleFiles = []struct {
	name string
	args []string
}{
	{"rules.yml", []string{"rules", "-for", "5m"}},
	{"rules_team.yml", []string{"rules", "-labels", "team"}},
	{"rules_prod.yml", []string{"rules", "-job", "prod/availmon", "-only-job"}},
}

// TestRulesPromtool: `availmon rules` passes promtool check rules, and the
// unit tests of testdata/rules*_test.yml pass with promtool test rules: an
// app down for -for fires, one in maintenance does not, a degraded service,
// a stalled availmon (rules_test.yml); two replicas, plain and under the
// prometheus-operator, make one alert per outage (rules_replicas_test.yml);
// an app nobody can tell the state of (rules_unavailable_test.yml); failing
// state saves (rules_save_test.yml); -labels (rules_team_test.yml); two
// deployments with a copy of the rules each (rules_prod_test.yml).
func TestRulesPromtool(t *testing.T) {
	bin := promtool(t)
	dir := t.TempDir()
	for _, f := range promtoolRuleFiles {
		var out, errb bytes.Buffer
		if code := run(context.Background(), f.args, &out, &errb, nil); code != exitOK {
			t.Fatalf("availmon %s: exit %d: %s", strings.Join(f.args, " "), code, errb.String())
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "check", "rules", f.name)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool check rules %s: %v\n%s", f.name, err, b)
		}
	}
	units, err := filepath.Glob("testdata/rules*_test.yml")
	if err != nil || len(units) < 5 {
		t.Fatalf("testdata/rules*_test.yml: %v, %d files", err, len(units))
	}
	args := []string{"test", "rules"}
	for _, u := range units {
		b, err := os.ReadFile(u)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(u)), b, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, filepath.Base(u))
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, b)
	}
}

func TestRulesFlags(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"rules", "-for", "2m", "-unavailable-for", "20m", "-save-for", "30m", "-labels", " team, env ", "-job", "status"}
	if code := run(context.Background(), args, &out, &errb, nil); code != exitOK {
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
	if !strings.HasPrefix(found["AvailmonAppDown"], "2m max by (job, app, location, team, env) ") ||
		!strings.HasPrefix(found["AvailmonAppUnavailable"], "20m max by (job, app, location, team, env, backend) ") ||
		!strings.Contains(found["AvailmonStateSaveFailing"], "[30m]") ||
		!strings.Contains(found["AvailmonNotScraped"], `up{job="status"}`) {
		t.Errorf("rules: %v", found)
	}
	for _, args := range [][]string{{"rules", "-for", "0s"}, {"rules", "-for", "x"}, {"rules", "-job", ""}, {"rules", "extra"}, {"rules", "-nope"},
		{"rules", "-unavailable-for", "0s"}, {"rules", "-save-for", "-1m"}, {"rules", "-labels", "instance"}, {"rules", "-labels", "te am"}} {
		errb.Reset()
		if code := run(context.Background(), args, &out, &errb, nil); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
	if _, err := promexport.Rules(promexport.RuleOptions{AppDownFor: -1}); err == nil {
		t.Error("Rules with a negative duration: no error")
	}
}
