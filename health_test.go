package availmon

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/jsontime"
)

// The hand-written /health answer is what encoding/json writes, for every
// kind of version string and a zero time.
func TestHealthJSON(t *testing.T) {
	at := jsontime.Time(time.Date(2026, 11, 25, 10, 4, 5, 6e6, time.FixedZone("x", 3600)))
	for _, h := range []healthJSON{
		{Status: "healthy", Timestamp: at, Uptime: "1h2m3s", Version: "1.2.3"},
		{Status: "unhealthy", Uptime: "0s", Version: ""},
		{Status: "healthy", Timestamp: at, Uptime: "5s", Version: "v1 \"quoted\" <b>&\\ \x01 é \u2028 \xff"},
	} {
		var want bytes.Buffer
		if err := encodeJSON(&want, h); err != nil {
			t.Fatal(err)
		}
		want.WriteByte('\n')
		if got := h.appendJSON(nil); string(got) != want.String() {
			t.Errorf("appendJSON\n got %s\nwant %s", got, want.Bytes())
		}
	}
}

func FuzzHealthJSON(f *testing.F) {
	f.Add("1.2.3", "1m30s")
	f.Add("\x00\"\\<>&\u2028\xff", "")
	f.Fuzz(func(t *testing.T, version, uptime string) {
		h := healthJSON{Status: "healthy", Timestamp: jsontime.Time(time.Unix(1, 0)), Uptime: uptime, Version: version}
		var want bytes.Buffer
		if err := encodeJSON(&want, h); err != nil {
			t.Fatal(err)
		}
		want.WriteByte('\n')
		if got := h.appendJSON(nil); string(got) != want.String() {
			t.Errorf("appendJSON\n got %q\nwant %q", got, want.Bytes())
		}
	})
}

// /health carries the headers of every JSON answer.
func TestHealthHeaders(t *testing.T) {
	tm := newTestMonitor(t)
	rec := httptest.NewRecorder()
	tm.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/health", nil))
	for k, want := range map[string]string{"Content-Type": "application/json; charset=utf-8",
		"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"} {
		if got := rec.Header().Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	if rec.Header().Get("Content-Length") != strconv.Itoa(rec.Body.Len()) || len(rec.Header().Get("X-Request-Id")) != 32 {
		t.Errorf("headers %v for %d bytes", rec.Header(), rec.Body.Len())
	}
}
