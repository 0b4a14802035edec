package cachedbody

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// ServeJSON answers with the body and tail, gzipped when the client takes
// it, and with 304 and no body to a client that has the answer.
func TestServeJSON(t *testing.T) {
	b := New([]byte(`{"data":"` + strings.Repeat("x", 2000) + `"`))
	tail := []byte(`,"meta":{}}` + "\n")
	want := string(b.Head()) + string(tail)
	for _, tc := range []struct {
		name, accept string
		gzipped      bool
	}{
		{"plain", "", false},
		{"gzip", "gzip, br", true},
		{"gzip refused", "gzip;q=0", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.Header.Set("Accept-Encoding", tc.accept)
			rec := httptest.NewRecorder()
			b.ServeJSON(rec, r, tail)
			body := rec.Body.Bytes()
			if tc.gzipped {
				if rec.Header().Get("Content-Encoding") != "gzip" {
					t.Fatalf("Content-Encoding %q", rec.Header().Get("Content-Encoding"))
				}
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			if rec.Code != http.StatusOK || string(body) != want || rec.Header().Get("Content-Length") != itoa(rec.Body.Len()) ||
				rec.Header().Get("Content-Type") != "application/json; charset=utf-8" || rec.Header().Get("Vary") != "Accept-Encoding" {
				t.Fatalf("%d %v, %d bytes", rec.Code, rec.Header(), len(body))
			}
			r.Header.Set("If-None-Match", rec.Header().Get("ETag"))
			again := httptest.NewRecorder()
			b.ServeJSON(again, r, tail)
			if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
				t.Errorf("with its ETag: %d, %d bytes; want 304 and none", again.Code, again.Body.Len())
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// A Stream writes what encoding/json writes for the same values, lists
// made one element at a time included; a nil list is null.
func TestStreamMatchesEncodingJSON(t *testing.T) {
	type item struct {
		Name string `json:"name"`
		HTML string `json:"html"`
	}
	items := []item{{"a", "<b>&"}, {"c", ""}}
	for _, tc := range []struct {
		name  string
		write func(s *Stream)
		whole any
	}{
		{"list", func(s *Stream) { List(s, items) }, items},
		{"empty list", func(s *Stream) { List(s, []item{}) }, []item{}},
		{"nil list", func(s *Stream) { List[item](s, nil) }, []item(nil)},
		{"lazy list", func(s *Stream) { LazyList[item]{N: 2, Elem: func(i int) item { return items[i] }}.Write(s) }, items},
		{"value", func(s *Stream) { s.Value(items[0]) }, items[0]},
	} {
		var buf bytes.Buffer
		s := NewStream(&buf)
		tc.write(s)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(tc.whole); err != nil || s.Err() != nil {
			t.Fatal(err, s.Err())
		}
		if got := buf.String(); got+"\n" != want.String() {
			t.Errorf("%s: %s, want %s", tc.name, got, want.String())
		}
	}
	s := NewStream(new(bytes.Buffer))
	s.Value(func() {})
	if s.Err() == nil {
		t.Errorf("a func encoded without error")
	}
}
