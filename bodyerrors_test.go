package availmon

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/promtest"
)

// rawExchange writes head and body to a fresh connection to srv, half-closes
// it when closeWrite, and reads the one response.
func rawExchange(t *testing.T, srv *httptest.Server, request string, closeWrite bool) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	if closeWrite {
		conn.(*net.TCPConn).CloseWrite()
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// A body the client breaks (a bad chunk size, fewer bytes than its
// Content-Length, a body that stops arriving) is the client's fault: 400
// VALIDATION_ERROR, and nothing above debug in the log. With an
// Authenticator the verifier reads the body first; the answer is the same.
func TestBrokenRequestBody(t *testing.T) {
	const head = "POST /api/scrape-interval HTTP/1.1\r\nHost: availmon\r\nContent-Type: application/json\r\n"
	tests := []struct {
		name       string
		request    string
		closeWrite bool
	}{
		{"bad chunk size", head + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", false},
		{"shorter than Content-Length", head + "Content-Length: 100\r\n\r\n" + `{"interval":"30s"}`, true},
		{"read timeout", head + "Content-Length: 100\r\n\r\n" + `{"interval":`, false},
	}
	for _, auth := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(tt.name+" auth="+strconv.FormatBool(auth), func(t *testing.T) {
				var logs promtest.SyncBuffer
				logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
				var tm *testMonitor
				request := tt.request
				if auth {
					tm = newAuthMonitor(t, false)
					// A well-formed signature: the verifier reads the body
					// before it can compare.
					request = strings.Replace(request, "\r\n\r\n", "\r\nX-Timestamp: "+strconv.FormatInt(t0.Unix(), 10)+
						"\r\nAuthorization: HMAC-SHA256 "+strings.Repeat("ab", 32)+"\r\n\r\n", 1)
				} else {
					tm = newTestMonitor(t, openWrites)
				}
				tm.log = logger
				srv := httptest.NewUnstartedServer(tm.Handler())
				srv.Config.ReadTimeout = 300 * time.Millisecond
				srv.Config.ErrorLog = slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
				srv.Start()
				defer srv.Close()

				resp := rawExchange(t, srv, request, tt.closeWrite)
				var body struct {
					Error struct{ Code, Message string }
				}
				if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
					t.Fatalf("status %d, body is not the error envelope: %v", resp.StatusCode, err)
				}
				if resp.StatusCode != http.StatusBadRequest || body.Error.Code != codeValidation {
					t.Errorf("status %d code %q (%s), want 400 %s", resp.StatusCode, body.Error.Code, body.Error.Message, codeValidation)
				}
				if l := logs.String(); strings.Contains(l, "level=ERROR") || strings.Contains(l, "level=WARN") {
					t.Errorf("a client's broken body is logged above debug:\n%s", l)
				}
				if got := tm.Interval(); got != 30*time.Second {
					t.Errorf("interval %s after a broken body, want it unchanged", got)
				}
			})
		}
	}
}
