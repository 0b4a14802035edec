package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// platform is one GOOS/GOARCH pair.
type platform struct{ os, arch string }

func (p platform) String() string { return p.os + "/" + p.arch }

// dir is the platform's name in paths: OS-ARCH, as the Dockerfile's
// .build/linux-${TARGETARCH} expects.
func (p platform) dir() string { return p.os + "-" + p.arch }

// exe is the binary's file name on the platform.
func (p platform) exe() string {
	if p.os == "windows" {
		return "availmon.exe"
	}
	return "availmon"
}

// parsePlatforms reads "linux/amd64,darwin/arm64".
func parsePlatforms(s string) ([]platform, error) {
	var out []platform
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		goos, goarch, ok := strings.Cut(f, "/")
		if !ok || goos == "" || goarch == "" || strings.ContainsAny(goarch, "/ ") {
			return nil, fmt.Errorf("%q is not GOOS/GOARCH", f)
		}
		p := platform{goos, goarch}
		if slices.Contains(out, p) {
			return nil, fmt.Errorf("%s is listed twice", p)
		}
		out = append(out, p)
	}
	return out, nil
}

func (o options) binaryPath(p platform) string {
	return filepath.Join(o.build, p.dir(), p.exe())
}

func (o options) has(p platform) bool { return slices.Contains(o.platforms, p) }

// findSource is the nearest directory at or above the working directory
// whose go.mod is availmon's module.
func findSource() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && modFileDeclares(b, modulePath) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no directory above the working directory holds module " + modulePath + "; give -src")
		}
		dir = parent
	}
}

// modFileDeclares reports whether a go.mod declares module path.
func modFileDeclares(gomod []byte, path string) bool {
	for line := range bytes.Lines(gomod) {
		f := strings.Fields(string(line))
		if len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == path {
			return true
		}
	}
	return false
}

// gitVersion is `git describe` of the source, or "dev" outside a git tree.
func gitVersion(src string) string {
	cmd := exec.Command("git", "describe", "--tags", "--always", "--dirty")
	cmd.Dir = src
	out, err := cmd.Output()
	if v := strings.TrimSpace(string(out)); err == nil && v != "" {
		return v
	}
	return "dev"
}

// sourceDate is the time stamped on the archives' entries: the
// SOURCE_DATE_EPOCH of reproducible builds when it is set, else now.
func sourceDate(lookup func(string) (string, bool)) (time.Time, error) {
	s, ok := lookup("SOURCE_DATE_EPOCH")
	if !ok || s == "" {
		return time.Now().UTC().Truncate(time.Second), nil
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil || sec < 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a count of seconds", s)
	}
	return time.Unix(sec, 0).UTC(), nil
}
