package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is a child process whose output goes to a file in the run's
// directory, stopped by stop.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	log  string
}

func start(dir, name string, args ...string) (*process, error) {
	return startEnv(dir, nil, name, args...)
}

// startEnv is start with env as the process's environment (nil: this
// process's).
func startEnv(dir string, env []string, name string, args ...string) (*process, error) {
	logPath := filepath.Join(dir, filepath.Base(name)+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(name, args...)
	// In the run's directory: the binary keeps its state under data/
	// there, so that no run restores another's.
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, err
	}
	p := &process{name: name, cmd: cmd, done: make(chan struct{}), log: logPath}
	go func() {
		cmd.Wait() //nolint:errcheck // the exit is reported by stop's caller if it matters
		f.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *process) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill() //nolint:errcheck
		<-p.done
	}
}

func (p *process) pid() int { return p.cmd.Process.Pid }

// tail is the end of the process's output, for error messages.
func (p *process) tail() string {
	b, _ := os.ReadFile(p.log)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// waitHTTP waits until url answers 200, the process exits, or ctx ends.
func waitHTTP(ctx context.Context, p *process, url string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	c := &http.Client{Timeout: 2 * time.Second}
	for {
		if res, err := c.Get(url); err == nil {
			io.Copy(io.Discard, res.Body) //nolint:errcheck
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited before %s answered:\n%s", p.name, url, p.tail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer %s within %s:\n%s", p.name, url, timeout, p.tail())
		}
	}
}

// startPrometheus runs the prometheus binary scraping target every 5s.
func startPrometheus(ctx context.Context, bin, dir, target string) (*process, string, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	cfg := fmt.Sprintf("global:\n  scrape_interval: 5s\n  scrape_timeout: 5s\nscrape_configs:\n  - job_name: bench\n    static_configs:\n      - targets: [%q]\n", target)
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return nil, "", err
	}
	p, err := start(dir, bin, "--config.file="+cfgPath, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	if err != nil {
		return nil, "", fmt.Errorf("starting prometheus (the Debian package `prometheus`): %w", err)
	}
	url := "http://" + addr
	if err := waitHTTP(ctx, p, url+"/-/ready", 60*time.Second); err != nil {
		p.stop()
		return nil, "", err
	}
	return p, url, nil
}

// state is what app i is: every 7th down, every 11th without a series
// (unavailable), the rest up.
func state(i int) string {
	switch {
	case i%11 == 0:
		return "unavailable"
	case i%7 == 0:
		return "down"
	}
	return "up"
}

func appName(i int) string { return fmt.Sprintf("app-%05d", i) }

// exporterText is the series the exporter serves for n apps.
func exporterText(n int) []byte {
	var b strings.Builder
	b.WriteString("# TYPE bench_app_up gauge\n")
	for i := range n {
		switch state(i) {
		case "up":
			fmt.Fprintf(&b, "bench_app_up{app=%q} 1\n", appName(i))
		case "down":
			fmt.Fprintf(&b, "bench_app_up{app=%q} 0\n", appName(i))
		}
	}
	return []byte(b.String())
}

// availmonConfig is the YAML configuration of n apps in locs locations.
func availmonConfig(promURL string, n int, o options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "scrape_interval: %s\nhistory_size: %d\nlog_level: warn\n", o.interval, o.history)
	fmt.Fprintf(&b, "storage:\n  save_interval: %s\n", o.saveInterval)
	fmt.Fprintf(&b, "prometheus:\n  - name: main\n    url: %s\n", promURL)
	b.WriteString("locations:\n")
	for l := range o.locations {
		fmt.Fprintf(&b, "  - name: location-%03d\n    latitude: %d\n    longitude: %d\n", l, l%180-90, l%360-180)
	}
	b.WriteString("apps:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - name: %s\n    location: location-%03d\n    metric: bench_app_up{app=%q}\n", appName(i), i%o.locations, appName(i))
	}
	writeObjectives(&b, n, o)
	return b.String()
}

// writeObjectives adds o.objectives objectives (at most one per app): one
// in ten over a location, the rest over apps spread evenly over the
// fleet, with windows and targets of the usual kinds.
func writeObjectives(b *strings.Builder, n int, o options) {
	k := min(o.objectives, n)
	if k == 0 {
		return
	}
	windows := []string{"30d", "28d", "90d", "month", "quarter"}
	targets := []string{"99.9%", "99.5%", "99.95%", "99%"}
	b.WriteString("objectives:\n")
	for j := range k {
		fmt.Fprintf(b, "  - name: objective-%05d\n    target: %s\n    window: %s\n", j, targets[j%len(targets)], windows[j%len(windows)])
		if j%10 == 9 {
			fmt.Fprintf(b, "    location: location-%03d\n", (j/10)%o.locations)
		} else {
			fmt.Fprintf(b, "    app: %s\n", appName(j*(n/k)))
		}
	}
}

// rss reads a process's resident memory and its peak, in bytes.
func rss(pid int) (cur, peak int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			return 0, 0, fmt.Errorf("unexpected %s line %q", k, line)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, 0, err
		}
		if k == "VmRSS" {
			cur = n << 10
		} else {
			peak = n << 10
		}
	}
	return cur, peak, nil
}

// resetPeak makes VmHWM start again from the current resident memory.
func resetPeak(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// cpuSeconds is the process's user and system CPU time.
func cpuSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which is in parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, errors.New("unexpected /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("unexpected /proc stat")
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	const clkTck = 100 // USER_HZ on Linux
	return (ut + st) / clkTck, nil
}
