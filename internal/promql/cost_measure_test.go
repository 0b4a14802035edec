//go:build promcost

// TestPromCost measures a real Prometheus's CPU-seconds per cycle (from
// /proc/<pid>/stat, its idle CPU subtracted) answering 100,000
// bench_app_up{app="app-N"} series in several query forms, as the bench's
// backendFloor does. It is a measuring tool, not a test: run it alone,
//
//	go test -tags promcost -run TestPromCost -v ./internal/promql/
//
// ONLY=plan32k,wide,... picks forms (in that order, repeats allowed),
// ROUNDS=n sets the cycles per form, and HOLD=40s then loops the first
// form so that Prometheus's /debug/pprof/profile can be taken (its URL is
// written to /tmp/promcost/url).
package promql

import (
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func appName(i int) string { return fmt.Sprintf("app-%05d", i) }

func startProm(t *testing.T, n int) (string, int) {
	text := func() []byte {
		var b strings.Builder
		b.WriteString("# TYPE bench_app_up gauge\n")
		for i := range n {
			switch {
			case i%11 == 0:
			case i%7 == 0:
				fmt.Fprintf(&b, "bench_app_up{app=%q} 0\n", appName(i))
			default:
				fmt.Fprintf(&b, "bench_app_up{app=%q} 1\n", appName(i))
			}
		}
		return []byte(b.String())
	}()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(text) }))
	pl, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := pl.Addr().String()
	pl.Close()
	dir := t.TempDir()
	cfg := fmt.Sprintf("global:\n  scrape_interval: 5s\n  scrape_timeout: 5s\nscrape_configs:\n  - job_name: bench\n    static_configs:\n      - targets: [%q]\n", ln.Addr().String())
	os.WriteFile(filepath.Join(dir, "p.yml"), []byte(cfg), 0o644)
	cmd := exec.Command("prometheus", "--config.file="+filepath.Join(dir, "p.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr, "--log.level=warn")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	u := "http://" + addr
	for range 120 {
		time.Sleep(time.Second)
		res, err := http.Get(u + "/api/v1/query?query=count(bench_app_up)")
		if err == nil {
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if strings.Contains(string(b), `"result":[{`) {
				return u, cmd.Process.Pid
			}
		}
	}
	t.Fatal("no series")
	return "", 0
}

func cpuSec(pid int) float64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	u, _ := strconv.ParseFloat(f[11], 64)
	k, _ := strconv.ParseFloat(f[12], 64)
	return (u + k) / 100
}

type form struct {
	name   string
	qs     []string
	get    bool
	nogzip bool
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100, DisableCompression: true}}

func ask(u, q string, get, nogzip bool) (int, error) {
	v := url.Values{"query": {q}, "time": {strconv.FormatInt(time.Now().Unix(), 10)}}
	var req *http.Request
	if get {
		req, _ = http.NewRequest("GET", u+"/api/v1/query?"+v.Encode(), nil)
	} else {
		req, _ = http.NewRequest("POST", u+"/api/v1/query", strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if !nogzip {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	var r io.Reader = res.Body
	if res.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(res.Body)
		if err != nil {
			return 0, err
		}
		r = z
	}
	b, err := io.ReadAll(r)
	if res.StatusCode != 200 {
		return 0, fmt.Errorf("%s: %s", res.Status, b[:min(len(b), 300)])
	}
	return strings.Count(string(b), `"metric"`), err
}

func round(t *testing.T, u string, f form) int {
	var wg sync.WaitGroup
	cnt := make([]int, len(f.qs))
	for i, q := range f.qs {
		wg.Go(func() {
			c, err := ask(u, q, f.get, f.nogzip)
			if err != nil {
				t.Error(err)
			}
			cnt[i] = c
		})
	}
	wg.Wait()
	s := 0
	for _, c := range cnt {
		s += c
	}
	return s
}

func planned(n, maxLen, maxTerms int) []string {
	items := make([]*Expr, n)
	for i := range n {
		e, _ := Parse(fmt.Sprintf("bench_app_up{app=%q}", appName(i)))
		items[i] = e
	}
	var out []string
	for _, q := range Plan(items, maxLen, maxTerms) {
		out = append(out, q.String())
	}
	return out
}

func TestPromCost(t *testing.T) {
	n := 100000
	u, pid := startProm(t, n)
	forms := []form{
		{name: "plan32k", qs: planned(n, 32<<10, 200)},
		{name: "plan32k-nogzip", qs: planned(n, 32<<10, 200), nogzip: true},
		{name: "plan32k-get", qs: planned(n, 32<<10, 200), get: true},
		{name: "plan8k", qs: planned(n, 8<<10, 200)},
		{name: "plan128k", qs: planned(n, 128<<10, 200)},
		{name: "plan1M", qs: planned(n, 1<<20, 200)},
		{name: "bare", qs: []string{`bench_app_up`}},
		{name: "wide", qs: func() []string {
			items := make([]*Expr, n)
			for i := range n {
				items[i], _ = Parse(fmt.Sprintf("bench_app_up{app=%q}", appName(i)))
			}
			var out []string
			for _, q := range PlanWide(items, 32<<10, 200, ShardValues) {
				out = append(out, q.String())
			}
			return out
		}()},
		{name: "plus", qs: []string{`bench_app_up{app=~".+"}`}},
		{name: "count", qs: []string{`count(bench_app_up)`}},
		{name: "ors", qs: func() []string {
			var qs []string
			for k := range 31 {
				var b []string
				for i := k * 3226; i < min(n, (k+1)*3226); i++ {
					b = append(b, fmt.Sprintf(`bench_app_up{app=%q}`, appName(i)))
				}
				qs = append(qs, strings.Join(b, " or "))
			}
			return qs
		}()},
		{name: "bare-nogzip", qs: []string{`bench_app_up`}, nogzip: true},
		{name: "bare-x8", qs: func() []string {
			var qs []string
			for d := range 10 {
				qs = append(qs, fmt.Sprintf(`bench_app_up{app=~"app-%d.*"}`, d))
			}
			return qs
		}()},
	}
	if os.Getenv("ONLY") != "" {
		byName := map[string]form{}
		for _, f := range forms {
			byName[f.name] = f
		}
		forms = nil
		for _, name := range strings.Split(os.Getenv("ONLY"), ",") {
			forms = append(forms, byName[name])
		}
	}
	rounds := 5
	if r, _ := strconv.Atoi(os.Getenv("ROUNDS")); r > 0 {
		rounds = r
	}
	// idle cost
	c0 := cpuSec(pid)
	time.Sleep(5 * time.Second)
	idle := (cpuSec(pid) - c0) / 5
	t.Logf("idle %.3f CPU-s/s", idle)
	for _, f := range forms {
		got := round(t, u, f)
		c0 := cpuSec(pid)
		w0 := time.Now()
		for range rounds {
			round(t, u, f)
		}
		wall := time.Since(w0).Seconds()
		cpu := cpuSec(pid) - c0 - idle*wall
		t.Logf("%-16s queries %3d maxlen %7d series %6d  cpu/cycle %.3f (raw %.3f) wall/cycle %.3f", f.name, len(f.qs), maxLen(f.qs), got, cpu/float64(rounds), (cpu+idle*wall)/float64(rounds), wall/float64(rounds))
	}
	if d := os.Getenv("HOLD"); d != "" {
		f := forms[0]
		dur, _ := time.ParseDuration(d)
		t.Logf("looping %s on %s for %s; pprof at %s/debug/pprof/profile", f.name, u, d, u)
		os.WriteFile("/tmp/promcost/url", []byte(u), 0o644)
		end := time.Now().Add(dur)
		for time.Now().Before(end) {
			round(t, u, f)
		}
	}
}

func maxLen(qs []string) int {
	m := 0
	for _, q := range qs {
		m = max(m, len(q))
	}
	return m
}
