package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/promtest"
)

var listenPort = regexp.MustCompile(`msg=listening addr=\S*:(\d+)`)

// runListening is run() on the address listen, logging to the returned
// buffer; base is the loopback address of its port, whatever it listens on.
func runListening(t *testing.T, listen string, args ...string) (p *inProcess) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	p = &inProcess{log: new(promtest.SyncBuffer), cancel: cancel, done: make(chan int, 1)}
	t.Cleanup(cancel)
	args = append([]string{"-listen", listen, "-storage.path", t.TempDir()}, args...)
	go func() { p.done <- run(ctx, args, io.Discard, p.log, noEnv) }()
	waitFor(t, "the listening log line", 10*time.Second, func() bool {
		m := listenPort.FindStringSubmatch(p.log.String())
		if m != nil {
			p.base = "http://127.0.0.1:" + m[1]
		}
		return m != nil
	})
	return p
}

// The binary warns at start when it serves something unauthenticated on an
// address other hosts may reach: writes opened with
// allow_unauthenticated_writes, and -web.enable-pprof. On loopback it does
// not. Without the opt-in, writes are refused on any address.
func TestWarnsWhenExposed(t *testing.T) {
	const writesWarn, pprofWarn = "writes are unauthenticated", "-web.enable-pprof serves Go's profiles unauthenticated"
	tests := []struct {
		name, listen string
		open, pprof  bool
		warns        []string
	}{
		{"open writes on all addresses", "0.0.0.0:0", true, false, []string{writesWarn}},
		{"open writes on loopback", "127.0.0.1:0", true, false, nil},
		{"pprof on all addresses", "0.0.0.0:0", false, true, []string{pprofWarn}},
		{"pprof on loopback", "127.0.0.1:0", false, true, nil},
		{"both on all addresses", "0.0.0.0:0", true, true, []string{writesWarn, pprofWarn}},
		{"default on all addresses", "0.0.0.0:0", false, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			extra := ""
			if tt.open {
				extra = openWritesYAML
			}
			args := []string{"-config", writeConfig(t, extra)}
			if tt.pprof {
				args = append(args, "-web.enable-pprof")
			}
			p := runListening(t, tt.listen, args...)
			defer p.stop(t)
			log := p.log.String()
			for _, w := range []string{writesWarn, pprofWarn} {
				want := false
				for _, x := range tt.warns {
					want = want || x == w
				}
				line := warnLine(log, w)
				if (line != "") != want {
					t.Errorf("warning %q logged: %v, want %v; log:\n%s", w, line != "", want, log)
				}
				if want && !strings.Contains(line, "level=WARN") {
					t.Errorf("not a warning: %s", line)
				}
			}
			resp, err := http.Post(p.base+"/api/scrape-interval", "application/json", strings.NewReader(`{"interval":"2s"}`))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			switch {
			case tt.open && resp.StatusCode != http.StatusOK:
				t.Errorf("unsigned POST with the opt-in = %d %s", resp.StatusCode, b)
			case !tt.open && (resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b), `"code":"FORBIDDEN"`) ||
				!strings.Contains(string(b), "authentication.hmac")):
				t.Errorf("unsigned POST without the opt-in = %d %s; want 403 FORBIDDEN saying how to configure authentication", resp.StatusCode, b)
			}
		})
	}
}

// warnLine is the line of log that holds s, or "".
func warnLine(log, s string) string {
	for l := range strings.Lines(log) {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// With allow_unauthenticated_writes, -web.enable-reload needs no hmac:
// POST /-/reload is a write like the others, served unsigned.
func TestReloadWithOpenWrites(t *testing.T) {
	p := runListening(t, "127.0.0.1:0", "-config", writeConfig(t, openWritesYAML), "-web.enable-reload")
	defer p.stop(t)
	resp, err := http.Post(p.base+"/-/reload", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("unsigned POST /-/reload with the opt-in = %d %s", resp.StatusCode, b)
	}
}
