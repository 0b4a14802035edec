package cachedbody

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A segmented body is the same answer as the bytes in one piece: the
// same bytes, plain and gzipped, the same ETags and 304s, whatever the
// segment size and however the writes fall across segments.
func TestSegmentedEqualsWhole(t *testing.T) {
	whole := []byte(`{"data":[` + strings.Repeat(`{"name":"checkout","status":"up"},`, 300) + `{}]`)
	tail := []byte(`,"meta":{}}` + "\n")
	for _, size := range []int{0, 1, 7, 1000, len(whole) - 1, len(whole), len(whole) + 1} {
		for _, chunk := range []int{1, 13, 4096} {
			segs := Segments{Size: size}
			for p := whole; len(p) > 0; p = p[min(chunk, len(p)):] {
				segs.Write(p[:min(chunk, len(p))]) //nolint:errcheck
			}
			if segs.Len() != len(whole) {
				t.Fatalf("size %d, writes of %d: Len %d, want %d", size, chunk, segs.Len(), len(whole))
			}
			got, want := NewSegmented(&segs), New(whole)
			name := fmt.Sprintf("size %d, writes of %d", size, chunk)
			if !bytes.Equal(got.Head(), whole) || got.Len() != len(whole) {
				t.Fatalf("%s: bytes differ", name)
			}
			for _, gz := range []bool{false, true} {
				if got.ETag(tail, gz) != want.ETag(tail, gz) {
					t.Errorf("%s: ETag %s, want %s", name, got.ETag(tail, gz), want.ETag(tail, gz))
				}
			}
			g, _ := got.Gzipped()
			var zb bytes.Buffer
			if err := g.WriteTo(&zb, tail); err != nil {
				t.Fatal(err)
			}
			if out := gunzip(t, zb.Bytes()); !bytes.Equal(out, append(bytes.Clone(whole), tail...)) {
				t.Errorf("%s: gzip answer differs", name)
			}
			for _, accept := range []string{"", "gzip"} {
				gr, wr := serveOnce(got, accept, tail, ""), serveOnce(want, accept, tail, "")
				if !bytes.Equal(gr.Body.Bytes(), wr.Body.Bytes()) || gr.Header().Get("Content-Length") != wr.Header().Get("Content-Length") {
					t.Errorf("%s, Accept-Encoding %q: answer differs from the whole body's", name, accept)
				}
				if nm := serveOnce(got, accept, tail, wr.Header().Get("ETag")); nm.Code != http.StatusNotModified {
					t.Errorf("%s, Accept-Encoding %q: %d with the whole body's ETag, want 304", name, accept, nm.Code)
				}
			}
		}
	}
}

func serveOnce(b *Body, accept string, tail []byte, inm string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Accept-Encoding", accept)
	if inm != "" {
		r.Header.Set("If-None-Match", inm)
	}
	rec := httptest.NewRecorder()
	b.ServeJSON(rec, r, tail)
	return rec
}

// blockingWriter signals each Write and waits until let go.
type blockingWriter struct {
	h      http.Header
	wrote  chan int
	resume chan struct{}
}

func (w *blockingWriter) Header() http.Header { return w.h }
func (w *blockingWriter) WriteHeader(int)     {}
func (w *blockingWriter) Write(p []byte) (int, error) {
	w.wrote <- len(p)
	<-w.resume
	return len(p), nil
}

// A request still writing a segmented body holds only the segment it
// writes: once nothing else holds the body, the segments it has passed
// are garbage. That is what lets an older snapshot's answer shrink while
// slow clients read it.
func TestSegmentsWrittenAreReleased(t *testing.T) {
	const n, size = 8, 64 << 10
	segs := Segments{Size: size}
	segs.Write(bytes.Repeat([]byte("x"), n*size)) //nolint:errcheck
	var freed atomic.Int32
	for seg := segs.first; seg != nil; seg = seg.next {
		runtime.AddCleanup(&seg.b[0], func(*atomic.Int32) { freed.Add(1) }, &freed)
	}
	b := NewSegmented(&segs)
	w := &blockingWriter{h: http.Header{}, wrote: make(chan int, n+2), resume: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.ServeJSON(w, httptest.NewRequest(http.MethodGet, "/", nil), []byte("}"))
	}()
	<-w.wrote // the first segment
	b = nil
	for range n / 2 {
		w.resume <- struct{}{}
		<-w.wrote
	}
	// Writing the fifth segment: the four before it are garbage.
	deadline := time.Now().Add(10 * time.Second)
	for freed.Load() < n/2 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := freed.Load(); got < n/2 {
		t.Errorf("%d of the %d segments written freed, want %d", got, n/2, n/2)
	}
	if got := freed.Load(); got > n/2 {
		t.Errorf("%d segments freed while the fifth is being written, want %d", got, n/2)
	}
	close(w.resume) // the rest and the tail
	<-done
}
