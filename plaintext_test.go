package availmon

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// What Go's server refuses before any handler runs is answered by net/http
// in plain text; docs/decisions.md list these answers, and this test
// keeps that list true. Everything that reaches the handler, a bad escape
// in the query string included, gets the error envelope.
func TestAnswersBeforeTheHandler(t *testing.T) {
	tm := newTestMonitor(t)
	srv := httptest.NewServer(tm.h)
	defer srv.Close()
	const host = "Host: availmon\r\n"
	tests := []struct {
		name     string
		request  string
		status   int
		envelope bool
	}{
		{"bad escape in the path", "GET /api/apps/%zz HTTP/1.1\r\n" + host + "\r\n", http.StatusBadRequest, false},
		{"no Host header", "GET /api/apps HTTP/1.1\r\n\r\n", http.StatusBadRequest, false},
		{"headers too large", "GET /api/apps HTTP/1.1\r\n" + host + "X-Big: " + strings.Repeat("a", 1<<20+4096) + "\r\n\r\n", http.StatusRequestHeaderFieldsTooLarge, false},
		{"unsupported transfer encoding", "POST /api/scrape-interval HTTP/1.1\r\n" + host + "Transfer-Encoding: gzip\r\n\r\n", http.StatusNotImplemented, false},
		{"unsupported HTTP version", "GET /api/apps HTTP/2.0\r\n" + host + "\r\n", http.StatusHTTPVersionNotSupported, false},
		{"bad Expect", "POST /api/scrape-interval HTTP/1.1\r\n" + host + "Expect: magic\r\nContent-Length: 2\r\n\r\n{}", http.StatusExpectationFailed, false},
		{"bad escape in the query", "GET /api/status/history?period=%zz HTTP/1.1\r\n" + host + "\r\n", http.StatusBadRequest, true},
		{"escaped name", "GET /api/apps/no%20such HTTP/1.1\r\n" + host + "\r\n", http.StatusNotFound, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := rawExchange(t, srv, tt.request, false)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d (%s)", resp.StatusCode, tt.status, body)
			}
			isJSON := strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") &&
				strings.Contains(string(body), `"error":{"code":`)
			if isJSON != tt.envelope {
				t.Errorf("envelope %v, want %v: %s %s", isJSON, tt.envelope, resp.Header.Get("Content-Type"), body)
			}
		})
	}
}
