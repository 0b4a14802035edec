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

// A client that does not take gzip, or that has the answer already, never
// costs a compression: only a gzip answer that is sent needs one.
func TestServeCompressesOnlyForGzip(t *testing.T) {
	b := New([]byte(`{"data":"` + strings.Repeat("x", 2000) + `"`))
	tail := []byte(`,"meta":{}}` + "\n")
	plain := httptest.NewRecorder()
	b.ServeJSON(plain, httptest.NewRequest(http.MethodGet, "/", nil), tail)
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Accept-Encoding", "gzip")
	r.Header.Set("If-None-Match", b.ETag(tail, true))
	notModified := httptest.NewRecorder()
	b.ServeJSON(notModified, r, tail)
	if plain.Code != http.StatusOK || notModified.Code != http.StatusNotModified {
		t.Fatalf("plain %d, conditional gzip %d", plain.Code, notModified.Code)
	}
	if b.gz.start != nil {
		t.Errorf("the body was compressed for a plain request and a 304")
	}
	r.Header.Del("If-None-Match")
	gz := httptest.NewRecorder()
	b.ServeJSON(gz, r, tail)
	if gz.Header().Get("Content-Encoding") != "gzip" || b.gz.start == nil {
		t.Errorf("a gzip request got Content-Encoding %q", gz.Header().Get("Content-Encoding"))
	}
}

// TailFor makes a tail once per key, and Serve answers with the tags of
// the tail it is given, whichever was made last.
func TestTailFor(t *testing.T) {
	b := New([]byte(`{"data":"` + strings.Repeat("x", 2000) + `"`))
	made := 0
	mk := func(meta string) func() ([]byte, error) {
		return func() ([]byte, error) { made++; return []byte(`,"meta":"` + meta + `"}`), nil }
	}
	type key struct{ n int }
	for range 3 {
		if tail, _ := b.TailFor(key{1}, JSONType, mk("one")); string(tail) != `,"meta":"one"}` {
			t.Fatalf("tail %q", tail)
		}
	}
	if made != 1 {
		t.Fatalf("the tail of one key was made %d times", made)
	}
	two, _ := b.TailFor(key{2}, JSONType, mk("two"))
	one := []byte(`,"meta":"one"}`)
	for _, tail := range [][]byte{one, two, one} {
		rec := httptest.NewRecorder()
		b.ServeJSON(rec, httptest.NewRequest(http.MethodGet, "/", nil), tail)
		if rec.Header().Get("ETag") != b.ETag(tail, false) || rec.Body.String() != string(b.Head())+string(tail) {
			t.Errorf("tail %q: ETag %q, want %q", tail, rec.Header().Get("ETag"), b.ETag(tail, false))
		}
	}
	if made != 2 {
		t.Errorf("tails made %d times for two keys", made)
	}
	if _, err := b.TailFor(key{3}, JSONType, func() ([]byte, error) { return nil, io.ErrUnexpectedEOF }); err != io.ErrUnexpectedEOF {
		t.Errorf("TailFor's error: %v", err)
	}
}

// GzippedFor compresses only for a client that takes gzip.
func TestGzippedFor(t *testing.T) {
	b := New([]byte(strings.Repeat("x", 2000)))
	if _, ok := b.GzippedFor([]string{"br, gzip;q=0"}); ok || b.gz.start != nil {
		t.Fatalf("compressed for a client that refuses gzip")
	}
	if g, ok := b.GzippedFor([]string{"br, gzip"}); !ok || g.start == nil {
		t.Fatalf("not compressed for a client that takes gzip")
	}
}
