// Package promtest starts a real Prometheus server and small exporters for
// availmon's integration tests.
//
// Start runs the `prometheus` binary (the Debian package `prometheus`) on a
// free loopback port with a generated configuration and a temporary data
// directory, and stops it when the test ends:
//
//	exp := promtest.NewExporter(t)
//	exp.Set("checkout", 1)
//	srv := promtest.Start(t, promtest.Job("demo", exp.Target()))
//	srv.WaitForQuery(t, `demo_up{app="checkout"}`, promtest.SampleEquals(1))
//
// Without the binary, Start skips the test, unless the environment variable
// CI is set: there the integration tests must run, so it fails instead.
package promtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/model"
)

// Binary is the name of the Prometheus executable looked up in PATH.
const Binary = "prometheus"

// How long to wait for things a healthy machine does in well under a second:
// a busy CI machine shared by several jobs can be many times slower.
const (
	readyTimeout = 30 * time.Second
	stopTimeout  = 15 * time.Second
	// WaitTimeout bounds WaitForQuery and WaitForTarget.
	WaitTimeout = 30 * time.Second
	pollEvery   = 50 * time.Millisecond
)

// ScrapeInterval is the scrape and rule evaluation interval of every job.
const ScrapeInterval = time.Second

// Option configures a server started by Start.
type Option func(*config)

type config struct {
	jobs []job
	past []string // OpenMetrics texts written into the data dir (past.go)
	// prepare put past data into the data dir (block.go)
	prepare []func(tb testing.TB, dataDir string)
	// retention is --storage.tsdb.retention.time; empty: Prometheus's 15d
	retention string
	rules     []string // rule files' texts, evaluated every ScrapeInterval
}

// Retention keeps the samples of d back (Prometheus's default is 15 days,
// and drops older blocks written by Past at its first compaction).
func Retention(d time.Duration) Option {
	return func(c *config) { c.retention = fmt.Sprintf("%ds", int64(d/time.Second)) }
}

type job struct {
	name        string
	targets     []string
	honorLabels bool
	metricsPath string
}

// Job adds a scrape job with static targets ("127.0.0.1:port"), scraped
// every ScrapeInterval.
func Job(name string, targets ...string) Option {
	return func(c *config) { c.jobs = append(c.jobs, job{name: name, targets: targets}) }
}

// HonorLabelsJob is Job with honor_labels: true, so the target's own
// `job` and `instance` labels win over Prometheus's.
func HonorLabelsJob(name string, targets ...string) Option {
	return func(c *config) {
		c.jobs = append(c.jobs, job{name: name, targets: targets, honorLabels: true})
	}
}

// Rules loads a rule file (its text, as `availmon rules` prints it):
// Prometheus evaluates its groups every ScrapeInterval, and its alerts show
// in the ALERTS series.
func Rules(text string) Option {
	return func(c *config) { c.rules = append(c.rules, text) }
}

// Server is a running Prometheus process. Its methods may be called from the
// test's goroutine only.
type Server struct {
	tb      testing.TB
	bin     string
	dir     string // data directory, kept across Restart
	cfgFile string
	addr    string // 127.0.0.1:port, kept across Restart
	api     v1.API
	// kind names the product in messages; args and readyPath say how to
	// run it (Prometheus unless StartVictoriaMetrics set them).
	kind      string
	args      func() []string
	readyPath string
	// flagsPath answers the server's command-line flags, which name its
	// own data directory: how launch tells its server from another one
	// that took the same port first.
	flagsPath string

	proc *process // nil while stopped
}

// process is one run of the binary.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when Wait returned
	err  error         // Wait's error, set before done is closed
	out  *SyncBuffer
}

// SyncBuffer is a bytes.Buffer that goroutines may write while a test
// reads it: a process's output, a server's log.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Start starts Prometheus with the given jobs and waits until it is ready.
// The server is stopped, and its process waited for, when the test ends.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	bin := lookBinary(tb, Binary, "prometheus")
	var c config
	for _, o := range opts {
		o(&c)
	}
	s := &Server{tb: tb, bin: bin, dir: tb.TempDir(), kind: "prometheus", readyPath: "/-/ready",
		flagsPath: "/api/v1/status/flags"}
	s.args = func() []string {
		args := []string{
			"--config.file=" + s.cfgFile,
			"--storage.tsdb.path=" + filepath.Join(s.dir, "data"),
			"--web.listen-address=" + s.addr,
			"--web.enable-lifecycle",
			"--log.level=warn",
		}
		if c.retention != "" {
			args = append(args, "--storage.tsdb.retention.time="+c.retention)
		}
		return args
	}
	c.writePast(tb, filepath.Join(s.dir, "data"))
	for _, fill := range c.prepare {
		fill(tb, filepath.Join(s.dir, "data"))
	}
	s.start(c)
	return s
}

// start writes the scrape configuration, launches the server on a free
// port and makes its API client.
func (s *Server) start(c config) {
	tb := s.tb
	tb.Helper()
	s.cfgFile = filepath.Join(s.dir, "scrape.yml")
	var ruleFiles []string
	for i, text := range c.rules {
		f := filepath.Join(s.dir, fmt.Sprintf("rules-%d.yml", i))
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			tb.Fatalf("promtest: writing rules: %v", err)
		}
		ruleFiles = append(ruleFiles, f)
	}
	if err := os.WriteFile(s.cfgFile, []byte(c.yaml(ruleFiles)), 0o644); err != nil {
		tb.Fatalf("promtest: writing config: %v", err)
	}
	tb.Cleanup(s.stop)
	var err error

	// Another process may take the port between our probe and Prometheus's
	// bind; try a few fresh ports before giving up.
	const attempts = 5
	for i := range attempts {
		s.addr = freeAddr(tb)
		err = s.launch()
		if err == nil {
			break
		}
		if !errors.Is(err, errAddrInUse) || i == attempts-1 {
			tb.Fatalf("promtest: starting %s: %v", s.kind, err)
		}
	}
	client, err := api.NewClient(api.Config{Address: s.URL()})
	if err != nil {
		tb.Fatalf("promtest: %v", err)
	}
	s.api = v1.NewAPI(client)
}

func (c config) yaml(ruleFiles []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "global:\n  scrape_interval: %s\n  scrape_timeout: %s\n  evaluation_interval: %s\n",
		model.Duration(ScrapeInterval), model.Duration(ScrapeInterval), model.Duration(ScrapeInterval))
	if len(ruleFiles) > 0 {
		b.WriteString("rule_files:\n")
		for _, f := range ruleFiles {
			fmt.Fprintf(&b, "  - %q\n", f)
		}
	}
	b.WriteString("scrape_configs:\n")
	for _, j := range c.jobs {
		fmt.Fprintf(&b, "  - job_name: %q\n", j.name)
		if j.honorLabels {
			b.WriteString("    honor_labels: true\n")
		}
		b.WriteString("    static_configs:\n      - targets:\n")
		for _, t := range j.targets {
			fmt.Fprintf(&b, "          - %q\n", t)
		}
	}
	return b.String()
}

// lookBinary finds name in PATH; without it the test is skipped, or fails
// when CI is set, since there the integration tests must run.
func lookBinary(tb testing.TB, name, debianPackage string) string {
	tb.Helper()
	bin, err := exec.LookPath(name)
	if err != nil {
		msg := fmt.Sprintf("promtest: the %q binary is not installed (apt-get install -y %s): %v", name, debianPackage, err)
		if os.Getenv("CI") != "" {
			tb.Fatal(msg + "; CI is set, so the integration tests must run")
		}
		tb.Skip(msg)
	}
	return bin
}

// freeAddr returns a loopback address with a port nobody listened on a moment ago.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("promtest: finding a free port: %v", err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

var errAddrInUse = errors.New("address already in use")

// launch starts the binary on s.addr and waits for /-/ready.
func (s *Server) launch() error {
	p := &process{done: make(chan struct{}), out: &SyncBuffer{}}
	p.cmd = exec.Command(s.bin, s.args()...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		return err
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	s.proc = p

	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(readyTimeout)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		res, err := client.Get(s.URL() + s.readyPath)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK && s.ownsAddr(client) {
				return nil
			}
		}
		select {
		case <-p.done:
			s.proc = nil
			out := p.out.String()
			if strings.Contains(out, "address already in use") {
				return fmt.Errorf("%w: %s", errAddrInUse, s.addr)
			}
			return fmt.Errorf("%s exited before it was ready (%v):\n%s", s.kind, p.err, out)
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			s.stop()
			return fmt.Errorf("%s not ready after %s:\n%s", s.kind, readyTimeout, p.out.String())
		}
	}
}

// ownsAddr reports whether the server answering at s.addr is the one
// launched with s.dir. freeAddr's port can be taken by a server of another
// test before this one binds it; that server is ready at once, and without
// this check the test would query it (and Pause the wrong process).
func (s *Server) ownsAddr(client *http.Client) bool {
	res, err := client.Get(s.URL() + s.flagsPath)
	if err != nil {
		return false
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return err == nil && res.StatusCode == http.StatusOK && strings.Contains(string(b), s.dir)
}

// URL is the server's base URL, such as http://127.0.0.1:41234. It stays the
// same across Stop and Restart.
func (s *Server) URL() string { return "http://" + s.addr }

// Addr is the server's host:port, for use as a scrape target.
func (s *Server) Addr() string { return s.addr }

// API returns a client of the server's HTTP API.
func (s *Server) API() v1.API { return s.api }

// Stop stops the server with SIGTERM and waits for the process to end. The
// port then refuses connections until Restart.
func (s *Server) Stop() {
	s.tb.Helper()
	if s.proc == nil {
		s.tb.Fatal("promtest: Stop: the server is not running")
	}
	s.stop()
}

func (s *Server) stop() {
	p := s.proc
	if p == nil {
		return
	}
	s.proc = nil
	_ = p.cmd.Process.Signal(syscall.SIGCONT) // in case it was paused
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		s.tb.Errorf("promtest: %s ignored SIGTERM for %s and was killed:\n%s", s.kind, stopTimeout, p.out.String())
	}
}

// Pause freezes the process with SIGSTOP: connections are still accepted
// by the kernel, but no request is answered, as with a hung server.
func (s *Server) Pause() {
	s.tb.Helper()
	if s.proc == nil {
		s.tb.Fatal("promtest: Pause: the server is not running")
	}
	if err := s.proc.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		s.tb.Fatalf("promtest: Pause: %v", err)
	}
	// kill(2) returns once SIGSTOP is queued: one thread is woken to take
	// it and stops the others when it runs. On a busy machine that takes
	// milliseconds, while a thread already running goes on answering
	// queries (seen: a "hung" server answering a cycle in 2 ms). Return
	// only when every thread is stopped.
	if err := waitStopped(s.proc.cmd.Process.Pid, stopTimeout); err != nil {
		s.tb.Fatalf("promtest: Pause: %v", err)
	}
}

// waitStopped waits until every thread of process pid is in the stopped
// state ('T' in /proc/pid/task/tid/stat): Linux only.
func waitStopped(pid int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		running, err := runningThreads(pid)
		if err != nil {
			return err
		}
		if running == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d threads of process %d not stopped %s after SIGSTOP", running, pid, timeout)
		}
		time.Sleep(time.Millisecond)
	}
}

// runningThreads counts the threads of process pid that are not stopped.
func runningThreads(pid int) (int, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	running := 0
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, task.Name(), "stat"))
		if errors.Is(err, os.ErrNotExist) {
			continue // the thread ended
		}
		if err != nil {
			return 0, err
		}
		// The state is the first field after the command name, which
		// is in parentheses and may contain spaces.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) == 0 {
			return 0, fmt.Errorf("promtest: unexpected /proc stat line %q", b)
		}
		if f[0] != "T" {
			running++
		}
	}
	return running, nil
}

// Resume undoes Pause with SIGCONT.
func (s *Server) Resume() {
	s.tb.Helper()
	if s.proc == nil {
		s.tb.Fatal("promtest: Resume: the server is not running")
	}
	if err := s.proc.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		s.tb.Fatalf("promtest: Resume: %v", err)
	}
}

// Restart starts the server again on the same port with the same data
// directory, and waits until it is ready.
func (s *Server) Restart() {
	s.tb.Helper()
	if s.proc != nil {
		s.stop()
	}
	if err := s.launch(); err != nil {
		s.tb.Fatalf("promtest: restarting %s on %s: %v", s.kind, s.addr, err)
	}
}

// Query evaluates expr now.
func (s *Server) Query(ctx context.Context, expr string) (model.Value, error) {
	v, _, _, err := s.api.Query(ctx, expr, time.Now())
	return v, err
}

// WaitForQuery evaluates expr until ok accepts the result, and returns that
// result. It fails the test after WaitTimeout, showing the last result or
// error. Use it after changing an exporter to know that Prometheus has
// scraped the change.
func (s *Server) WaitForQuery(tb testing.TB, expr string, ok func(model.Value) bool) model.Value {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), WaitTimeout)
	defer cancel()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var last model.Value
	var lastErr error
	for {
		last, lastErr = s.Query(ctx, expr)
		if lastErr == nil && ok(last) {
			return last
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("promtest: %q did not give the awaited result within %s; last result %v, error %v",
				expr, WaitTimeout, last, lastErr)
			return nil
		case <-tick.C:
		}
	}
}

// SampleEquals accepts an instant vector of exactly one sample whose value
// is want.
func SampleEquals(want float64) func(model.Value) bool {
	return func(v model.Value) bool {
		vec, ok := v.(model.Vector)
		return ok && len(vec) == 1 && float64(vec[0].Value) == want
	}
}

// SampleCount accepts an instant vector of exactly n samples.
func SampleCount(n int) func(model.Value) bool {
	return func(v model.Value) bool {
		vec, ok := v.(model.Vector)
		return ok && len(vec) == n
	}
}

// Targets returns the server's active scrape targets.
func (s *Server) Targets(ctx context.Context) ([]v1.ActiveTarget, error) {
	r, err := s.api.Targets(ctx)
	if err != nil {
		return nil, err
	}
	return r.Active, nil
}

// WaitForTarget waits until the target whose address is addr ("host:port")
// has the given health after at least one scrape, and fails the test after
// WaitTimeout.
func (s *Server) WaitForTarget(tb testing.TB, addr string, health v1.HealthStatus) v1.ActiveTarget {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), WaitTimeout)
	defer cancel()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var seen []v1.ActiveTarget
	for {
		ts, err := s.Targets(ctx)
		if err == nil {
			seen = ts
			for _, t := range ts {
				if t.DiscoveredLabels["__address__"] == addr && t.Health == health && !t.LastScrape.IsZero() {
					return t
				}
			}
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("promtest: target %s did not become %q within %s; targets: %+v", addr, health, WaitTimeout, seen)
			return v1.ActiveTarget{}
		case <-tick.C:
		}
	}
}

// Exporter is a scrape target served on loopback from a registry of its
// own, exposing the gauge demo_up{app} that a test sets and deletes.
type Exporter struct {
	srv *httptest.Server
	up  *prometheus.GaugeVec
}

// ExporterMetric is the name of the Exporter's gauge.
const ExporterMetric = "demo_up"

// NewExporter starts an exporter on 127.0.0.1; it is closed when the test
// ends, if not before.
func NewExporter(tb testing.TB) *Exporter {
	reg := prometheus.NewRegistry()
	e := &Exporter{up: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: ExporterMetric,
		Help: "Whether a demo app is up (1) or down (0), as a test set it.",
	}, []string{"app"})}
	reg.MustRegister(e.up)
	e.srv = httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	tb.Cleanup(e.srv.Close)
	return e
}

// Target is the exporter's address as a scrape target ("127.0.0.1:port").
func (e *Exporter) Target() string { return e.srv.Listener.Addr().String() }

// Set sets demo_up{app=app} to v, creating the series if needed.
func (e *Exporter) Set(app string, v float64) { e.up.WithLabelValues(app).Set(v) }

// Delete removes demo_up{app=app}: Prometheus marks the series stale at
// its next scrape.
func (e *Exporter) Delete(app string) { e.up.DeleteLabelValues(app) }

// Close stops serving: the target's `up` becomes 0 and all its series go
// stale.
func (e *Exporter) Close() {
	e.srv.CloseClientConnections()
	e.srv.Close()
}

// StaticTarget serves a fixed exposition text: a scrape target that costs
// the test process next to nothing, for benchmarks that measure its CPU.
type StaticTarget struct {
	srv *httptest.Server
}

// NewStaticTarget serves text (Prometheus text format 0.0.4) on 127.0.0.1
// until the test ends.
func NewStaticTarget(tb testing.TB, text string) *StaticTarget {
	body := []byte(text)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write(body)
	}))
	tb.Cleanup(srv.Close)
	return &StaticTarget{srv: srv}
}

// Target is the address to scrape ("127.0.0.1:port").
func (s *StaticTarget) Target() string { return s.srv.Listener.Addr().String() }

// CPUTime returns the CPU time (user and system) the running Prometheus
// process has used so far, read from /proc: Linux only.
func (s *Server) CPUTime() (time.Duration, error) {
	if s.proc == nil {
		return 0, errors.New("promtest: the server is not running")
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.proc.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may contain spaces: the fields
	// that follow it start after the last ')'. utime and stime are the
	// 14th and 15th fields of the whole line, in clock ticks.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("promtest: unexpected /proc stat line %q", b)
	}
	var utime, stime int64
	if _, err := fmt.Sscan(f[11], &utime); err != nil {
		return 0, err
	}
	if _, err := fmt.Sscan(f[12], &stime); err != nil {
		return 0, err
	}
	const ticksPerSecond = 100 // USER_HZ, fixed on Linux
	return time.Duration(utime+stime) * time.Second / ticksPerSecond, nil
}
