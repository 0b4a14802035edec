package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/promtest"
)

// startArgs is startInProcess with more flags, on a free port.
func startArgs(t *testing.T, args ...string) *inProcess {
	t.Helper()
	return runInProcess(t, noEnv, append([]string{"-listen", "127.0.0.1:0", "-storage.path", t.TempDir()}, args...)...)
}

// A client trickling a request body holds the shutdown only for the
// drain: its connection is then cut, a warning says so, and the exit
// status is still 0 (a SIGTERM is a clean stop).
func TestShutdownCutsTricklingClient(t *testing.T) {
	p := startArgs(t, "-config", writeConfig(t, openWritesYAML), "-shutdown-timeout", "300ms")
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A first request on the connection makes sure the server has
	// accepted it; the second trickles its body.
	br := bufio.NewReader(conn)
	io.WriteString(conn, "GET /health HTTP/1.1\r\nHost: availmon\r\n\r\n")
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	io.WriteString(conn, "POST /api/scrape-interval HTTP/1.1\r\nHost: availmon\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	// The server reads those bytes at once (its goroutine is waiting on
	// the connection); leave it a moment so the stop finds the request
	// in flight rather than the connection idle.
	time.Sleep(200 * time.Millisecond) // not a measurement: ordering only
	if code := p.stop(t); code != 0 {
		t.Errorf("exit code %d, want 0; log:\n%s", code, p.log.String())
	}
	log := p.log.String()
	for _, want := range []string{`level=WARN msg="connections still busy after the shutdown timeout: closed them" connections=1 timeout=300ms`, `msg="shutdown complete"`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
}

// The quick start works on any address: its probes of availmon itself
// follow the address bound (${AVAILMON_LISTEN_ADDR}), here a port the
// kernel picked.
func TestQuickStartAnyPort(t *testing.T) {
	p := startArgs(t, "-config", "../../examples/quickstart.yaml")
	defer p.stop(t)
	want := []string{`"name":"availmon","location":"Tel Aviv","status":"up"`,
		`"name":"missing-page","location":"London","status":"down"`,
		`"name":"nothing-listening","location":"London","status":"unavailable"`}
	waitFor(t, "the quick start's three states", 20*time.Second, func() bool {
		_, body := get(t, p.base+"/api/apps")
		for _, w := range want {
			if !strings.Contains(body, w) {
				return false
			}
		}
		return true
	})
}

// A port already taken is a clear error at start, before any probe could
// check somebody else's server.
func TestListenPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go http.Serve(ln, http.NotFoundHandler()) //nolint:errcheck // ends with ln
	var stderr promtest.SyncBuffer
	code := run(t.Context(), []string{"-config", "../../examples/quickstart.yaml", "-listen", ln.Addr().String()}, io.Discard, &stderr, noEnv)
	if code != exitError || !strings.Contains(stderr.String(), "availmon: cannot listen on "+ln.Addr().String()) ||
		!strings.Contains(stderr.String(), "address already in use") {
		t.Errorf("exit %d, stderr:\n%s\nwant 1 and a message that the address is in use", code, stderr.String())
	}
}
