package promsource

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/availmon/availmon"
)

// The transport stops reading at the limit, whether the answer says its
// length up front or not, and reports each request once to the context's
// observer.
func TestBackendTransportLimit(t *testing.T) {
	const limit = 1 << 20
	vector := func(size int) string {
		head := `{"status":"success","data":{"resultType":"vector","result":[`
		return head + strings.Repeat(" ", size-len(head)-3) + `]}}`
	}
	for _, tt := range []struct {
		name    string
		size    int
		chunked bool
		wantErr bool
	}{
		{"under the limit", limit - 100, false, false},
		{"exactly the limit", limit, true, false},
		{"over, with Content-Length", limit + 1, false, true},
		{"over, chunked", 3 * limit, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := vector(tt.size)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if !tt.chunked {
					w.Header().Set("Content-Length", fmt.Sprint(len(body)))
				}
				for rest := body; rest != ""; {
					n := min(len(rest), 64<<10)
					_, _ = w.Write([]byte(rest[:n]))
					w.(http.Flusher).Flush() // without Content-Length: chunked
					rest = rest[n:]
				}
			}))
			defer srv.Close()
			src, err := New(Options{Name: "t", URL: srv.URL, MaxResponseBytes: limit})
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var observed []error
			ctx := availmon.WithRequestObserver(context.Background(), func(_ time.Duration, err error) {
				mu.Lock()
				observed = append(observed, err)
				mu.Unlock()
			})
			_, _, err = src.query(ctx, "up")
			if got := errors.Is(err, ErrResponseTooLarge); got != tt.wantErr {
				t.Errorf("query error %v; want too large: %v", err, tt.wantErr)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(observed) != 1 || errors.Is(observed[0], ErrResponseTooLarge) != tt.wantErr {
				t.Errorf("observed %v, want one observation, too large: %v", observed, tt.wantErr)
			}
		})
	}
}
