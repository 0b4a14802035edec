package availmon

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// websocket.allowed_origins: ["localhost"] lets a page at
// http://localhost:5555 connect: a pattern without a port matches any
// port; one with a port only that port.
func TestWSOriginPatternWithoutPort(t *testing.T) {
	tests := []struct {
		patterns []string
		origin   string
		ok       bool
	}{
		{[]string{"localhost"}, "http://localhost:5555", true},
		{[]string{"localhost"}, "http://localhost", true},
		{[]string{"localhost"}, "http://localhost.evil.example:5555", false},
		{[]string{"localhost:5555"}, "http://localhost:5555", true},
		{[]string{"localhost:6000"}, "http://localhost:5555", false},
		{[]string{"*.example.com"}, "https://status.example.com:8443", true},
		{[]string{`\[::1\]`}, "http://[::1]:5555", true}, // path.Match: brackets escaped
		{[]string{"status.example.com"}, "http://evil.example:5555", false},
	}
	for _, tt := range tests {
		t.Run(tt.patterns[0]+" "+tt.origin, func(t *testing.T) {
			tm := newTestMonitor(t, func(o *Options) { o.WSOriginPatterns = tt.patterns })
			tm.scrape(t)
			srv := httptest.NewServer(tm.h)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, resp, err := websocket.Dial(ctx, wsURL(srv, "/api/ws"),
				&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {tt.origin}}})
			if c != nil {
				c.CloseNow()
			}
			if got := err == nil; got != tt.ok {
				status := 0
				if resp != nil {
					status = resp.StatusCode
				}
				t.Errorf("connected %v (status %d, %v), want %v", got, status, err, tt.ok)
			}
		})
	}
}

func TestOriginPatterns(t *testing.T) {
	got := originPatterns([]string{"localhost", "a:1", "[::1]", "[::1]:2", "*.x"})
	want := []string{"localhost", "localhost:*", "a:1", "[::1]", "[::1]:*", "[::1]:2", "*.x", "*.x:*"}
	if len(got) != len(want) {
		t.Fatalf("%q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%q, want %q", got, want)
		}
	}
}
