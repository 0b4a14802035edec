// Command release builds availmon's release: a static binary per platform
// with the version stamped in, an archive of each with the rules file, the
// example configuration and the systemd unit, and SHA256SUMS over them.
//
//	cd deploy && go run ./release -version v1.2.3
//
// The binaries land in .build/OS-ARCH/availmon (the layout the Dockerfile
// copies from) and the archives in dist/, both at the top of the source
// tree unless -build and -dist say otherwise.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// defaultPlatforms are the GOOS/GOARCH pairs of a release.
const defaultPlatforms = "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64"

// modulePath is the module whose ./cmd/availmon is built.
const modulePath = "github.com/availmon/availmon"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the release's flags.
type options struct {
	version   string
	platforms []platform
	src       string // the top of availmon's source tree
	build     string // binaries, per OS-ARCH
	dist      string // archives, the rules file and SHA256SUMS
	modTime   time.Time
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, code := parseFlags(args, stderr)
	if code >= 0 {
		return code
	}
	if err := release(ctx, o, stdout); err != nil {
		fmt.Fprintln(stderr, "release:", err)
		return 1
	}
	return 0
}

// parseFlags returns the options, or an exit code of 0 or more when the
// program should stop (help, or a usage error).
func parseFlags(args []string, stderr io.Writer) (options, int) {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	fs.SetOutput(stderr)
	version := fs.String("version", "", "the `version` stamped into the binaries (default: git describe --tags --always --dirty, else dev)")
	platforms := fs.String("platforms", defaultPlatforms, "comma-separated GOOS/GOARCH `list` to build")
	src := fs.String("src", "", "the `directory` of availmon's source (default: the nearest one above the working directory)")
	build := fs.String("build", "", "where the binaries go, as OS-ARCH/availmon (default SRC/.build)")
	dist := fs.String("dist", "", "where the archives, rules file and SHA256SUMS go (default SRC/dist)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return options{}, 0
		}
		return options{}, 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "release: unexpected argument %q\n", fs.Arg(0))
		return options{}, 2
	}
	var o options
	var err error
	if o.platforms, err = parsePlatforms(*platforms); err != nil {
		fmt.Fprintln(stderr, "release: -platforms:", err)
		return options{}, 2
	}
	if o.src = *src; o.src == "" {
		if o.src, err = findSource(); err != nil {
			fmt.Fprintln(stderr, "release:", err)
			return options{}, 2
		}
	}
	o.build, o.dist = orDefault(*build, filepath.Join(o.src, ".build")), orDefault(*dist, filepath.Join(o.src, "dist"))
	if o.version = *version; o.version == "" {
		o.version = gitVersion(o.src)
	}
	if o.modTime, err = sourceDate(os.LookupEnv); err != nil {
		fmt.Fprintln(stderr, "release:", err)
		return options{}, 2
	}
	return o, -1
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// release builds every platform, writes the rules file, archives each
// platform's binary with it and writes SHA256SUMS.
func release(ctx context.Context, o options, stdout io.Writer) error {
	for _, p := range o.platforms {
		start := time.Now()
		if err := buildBinary(ctx, o, p); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "built %s in %.0fs\n", o.binaryPath(p), time.Since(start).Seconds())
	}
	if err := os.MkdirAll(o.dist, 0o755); err != nil {
		return err
	}
	rules, err := rulesFile(ctx, o)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.dist, rulesName), rules, 0o644); err != nil {
		return err
	}
	names := []string{rulesName}
	for _, p := range o.platforms {
		name, err := writeArchive(o, p, rules)
		if err != nil {
			return err
		}
		names = append(names, name)
		fmt.Fprintf(stdout, "archived %s\n", filepath.Join(o.dist, name))
	}
	if err := writeChecksums(o.dist, names); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(o.dist, checksumsName))
	return nil
}

// buildBinary builds a static availmon for p with the version stamped in:
// no cgo (so the binary runs on scratch and on any libc), no local paths,
// no symbol table.
func buildBinary(ctx context.Context, o options, p platform) error {
	out := o.binaryPath(p)
	cmd := exec.CommandContext(ctx, goTool(), "build", "-trimpath",
		"-ldflags", "-s -w -X main.version="+o.version, "-o", out, "./cmd/availmon")
	cmd.Dir = o.src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.os, "GOARCH="+p.arch)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build for %s: %v\n%s", p, err, b)
	}
	return nil
}

// rulesFile is the output of `availmon rules`, from the binary just built
// for this machine, or from the source when none was.
func rulesFile(ctx context.Context, o options) ([]byte, error) {
	var cmd *exec.Cmd
	host := platform{runtime.GOOS, runtime.GOARCH}
	if o.has(host) {
		cmd = exec.CommandContext(ctx, o.binaryPath(host), "rules")
	} else {
		cmd = exec.CommandContext(ctx, goTool(), "run", "./cmd/availmon", "rules")
		cmd.Dir = o.src
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("availmon rules: %v\n%s", err, errb.String())
	}
	return out, nil
}

// goTool is the go command that runs this program, so that the release is
// built with the same toolchain.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
