package cachedbody

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// An encoded body answers as the same bytes held whole do, plain or
// gzipped, with the same ETags and 304s, whichever form a client asks for
// first; a body too small to compress is sent plain to a gzip client.
func TestEncodedEqualsWhole(t *testing.T) {
	tail := []byte(`,"meta":{}}` + "\n")
	for _, whole := range [][]byte{
		[]byte(`{"data":[` + strings.Repeat(`{"name":"checkout","status":"up"},`, 30000) + `{}]`),
		[]byte(`{"data":[]`),
	} {
		want := New(whole)
		for _, first := range []string{"", "gzip"} {
			b := encodedOf(whole, 1000)
			for _, accept := range []string{first, "gzip", "", "gzip"} {
				gr, wr := serveOnce(b, accept, tail, ""), serveOnce(want, accept, tail, "")
				if gr.Header().Get("ETag") != wr.Header().Get("ETag") || gr.Header().Get("Content-Encoding") != wr.Header().Get("Content-Encoding") {
					t.Fatalf("%d bytes, %q first, then %q: ETag %s %q, want %s %q", len(whole), first, accept,
						gr.Header().Get("ETag"), gr.Header().Get("Content-Encoding"), wr.Header().Get("ETag"), wr.Header().Get("Content-Encoding"))
				}
				got := gr.Body.Bytes()
				if gr.Header().Get("Content-Encoding") == "gzip" {
					got = gunzip(t, got)
				}
				if !bytes.Equal(got, append(bytes.Clone(whole), tail...)) || gr.Header().Get("Content-Length") != itoa(gr.Body.Len()) {
					t.Fatalf("%d bytes, %q first, then %q: answer differs", len(whole), first, accept)
				}
				if nm := serveOnce(b, accept, tail, wr.Header().Get("ETag")); nm.Code != http.StatusNotModified {
					t.Errorf("%d bytes, %q first, then %q: %d with the tag, want 304", len(whole), first, accept, nm.Code)
				}
			}
			if b.Len() != len(whole) || !bytes.Equal(b.Head(), whole) || b.ETag(nil, true) != want.ETag(nil, true) {
				t.Errorf("%d bytes: Len, Head or ETag differ from the whole body's", len(whole))
			}
		}
	}
}

// encodedOf is an encoded body that writes whole in pieces of n.
func encodedOf(whole []byte, n int) *Body {
	return NewEncoded(func(w io.Writer) {
		for p := whole; len(p) > 0; p = p[min(n, len(p)):] {
			w.Write(p[:min(n, len(p))]) //nolint:errcheck
		}
	})
}

// Gzip clients alone never make the plain bytes: what a snapshot keeps
// for them is the compressed answer, a 25th of the plain one. Their
// concurrent first requests encode the body once.
func TestEncodedGzipOnlyKeepsNoPlain(t *testing.T) {
	whole := []byte(`{"data":[` + strings.Repeat(`{"name":"checkout","status":"up"},`, 3000) + `{}]`)
	var mu sync.Mutex
	writes := 0
	b := NewEncoded(func(w io.Writer) {
		mu.Lock()
		writes++
		mu.Unlock()
		w.Write(whole) //nolint:errcheck
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if rec := serveOnce(b, "gzip", []byte("}"), ""); rec.Header().Get("Content-Encoding") != "gzip" {
				t.Errorf("not gzipped")
			}
		})
	}
	wg.Wait()
	if b.first != nil || writes != 1 {
		t.Errorf("gzip clients alone: plain bytes made %v, body written %d times, want not made and once", b.first != nil, writes)
	}
}
