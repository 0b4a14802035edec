package promsource

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// An answer is read into a buffer of its size, not one doubled: when the
// server says the length, that length; when it does not (a large answer is
// sent chunked), the last answer's and a margin for the few bytes a series
// an answer of the same series varies by.
func TestAnswerBufferFitsTheAnswer(t *testing.T) {
	const n = 1 << 20
	for _, tc := range []struct {
		name  string
		said  bool  // the server sends Content-Length
		sizes []int // the answers in turn; the last one's buffer is checked
	}{
		{name: "length said", said: true, sizes: []int{n + n/4}},
		{name: "chunked, grew a little", sizes: []int{n, n + n/32}},
		{name: "chunked, shrank a little", sizes: []int{n, n - n/32}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				body := bytes.Repeat([]byte{'x'}, tc.sizes[next])
				next++
				if tc.said {
					w.Header().Set("Content-Length", strconv.Itoa(len(body)))
				} else {
					w.(http.Flusher).Flush() // headers out without a length: chunked
				}
				_, _ = w.Write(body)
			}))
			t.Cleanup(srv.Close)
			src, err := New(Options{Name: "main", URL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			var body []byte
			for range tc.sizes {
				req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
				if err != nil {
					t.Fatal(err)
				}
				var res *http.Response
				res, body, err = src.do(context.Background(), req, nil)
				if err != nil {
					t.Fatal(err)
				}
				if (res.ContentLength >= 0) != tc.said {
					t.Fatalf("answer's Content-Length %d, want one said: %v", res.ContentLength, tc.said)
				}
			}
			if want := tc.sizes[len(tc.sizes)-1]; len(body) != want {
				t.Fatalf("read %d bytes, want %d", len(body), want)
			}
			room := len(body) + len(body)/8
			if tc.said {
				room = len(body) + bytes.MinRead
			}
			if cap(body) > room {
				t.Errorf("answer of %d bytes read into a buffer of %d, want at most %d", len(body), cap(body), room)
			}
		})
	}
}

// Answers are asked for uncompressed (docs/decisions.md): gzip would cost
// the server and availmon CPU for bytes that are free to move on a
// loopback, and the transport, which disables compression, would not
// inflate them. A request that asks for gzip, or a transport that adds it,
// fails this test.
func TestAnswersAskedUncompressed(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.Header.Get("Accept-Encoding"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[]}}`))
	}))
	t.Cleanup(srv.Close)
	src, err := New(Options{Name: "main", URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Check(context.Background(), jobApps(3)); err != nil {
		t.Fatal(err)
	}
	if len(asked) == 0 {
		t.Fatal("no request reached the server")
	}
	for _, enc := range asked {
		if strings.Contains(enc, "gzip") {
			t.Errorf("a query asked for Accept-Encoding %q, want no compression", enc)
		}
	}
}
