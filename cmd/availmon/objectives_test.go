package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The real binary's -check-config lists the objectives after the summary,
// then the warnings with their lines: a selector that matches no app of
// the file yet is one, not an error.
func TestCheckConfigObjectives(t *testing.T) {
	bin := binary(t)
	path := writeConfig(t, `objectives:
  - name: checkout-avail
    target: 99.9%
    window: 30d
    app: checkout
    labels: {team: payments}
  - {name: homepage-fast, target: 99%, window: month, app: homepage, latency: {threshold: 300ms}}
  - {name: tlv, target: 99.5%, window: quarter, location: Tel Aviv}
  - {name: search, target: 99%, window: 28d, selector: {team: search}, per_app: true}
`)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "-config", path, "-check-config")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("availmon -check-config: %v\n%s", err, stderr.String())
	}
	want := []string{
		"config OK: 2 apps (1 HTTP probe), 1 location, 1 Prometheus backend, 4 objectives",
		"objective checkout-avail: 99.9% over 30d of app checkout",
		"objective homepage-fast: 99% of checks within 300ms over month of app homepage",
		"objective tlv: 99.5% over quarter of location Tel Aviv",
		`objective search: 99% over 28d of each app of {team="search"}`,
		"warning: " + path + `:26: objective "search": no app of the file has the labels {team="search"} yet (a discovered app may)`,
	}
	if d := cmp.Diff(want, strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")); d != "" {
		t.Errorf("stdout (-want +got):\n%s", d)
	}
	// The monitor the check builds logs the same warning; nothing worse.
	if strings.Contains(stderr.String(), "level=ERROR") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// Bad objectives are each reported with their line, and the check fails.
func TestCheckConfigBadObjectives(t *testing.T) {
	bin := binary(t)
	path := writeConfig(t, `objectives:
  - {name: over, target: 100.5%, window: 30d, app: checkout}
  - {name: fortnight, target: 99%, window: fortnightly, app: checkout}
  - {name: ghost, target: 99%, window: 30d, app: nope}
  - {name: mars, target: 99%, window: 30d, location: Mars}
  - {name: slow, target: 99%, window: 30d, app: checkout, latency: {threshold: 2m}}
`)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "-config", path, "-check-config")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("availmon -check-config: %v, want exit code 1\n%s", err, stderr.String())
	}
	for _, w := range []string{
		path + `:19: objective "over": target "100.5%": must be at most 100%`,
		path + `:20: objective "fortnight": window "fortnightly": not a duration, month or quarter`,
		path + `:21: objective "ghost": no app is named "nope"`,
		path + `:22: objective "mars": no location is named "Mars"`,
		path + `:23: objective "slow": threshold "2m0s": a latency threshold must be above 0 and at most 1m`,
	} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("stderr lacks %s:\n%s", w, stderr.String())
		}
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout: %s", stdout.String())
	}
}
