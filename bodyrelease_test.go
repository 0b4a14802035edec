package availmon

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// slowWriter is a ResponseWriter whose Write waits until let go, as a
// slow client's connection does. It tells when the bytes of its first
// Write are freed.
type slowWriter struct {
	h      http.Header
	wrote  chan struct{}
	resume chan struct{}
	writes int
	sent   int // bytes of the Writes that returned
	freed  atomic.Bool
}

func (w *slowWriter) Header() http.Header { return w.h }
func (w *slowWriter) WriteHeader(int)     {}
func (w *slowWriter) Write(p []byte) (int, error) {
	if w.writes++; w.writes == 1 && len(p) > 0 {
		runtime.AddCleanup(&p[0], func(f *atomic.Bool) { f.Store(true) }, &w.freed)
	}
	w.wrote <- struct{}{}
	<-w.resume
	w.sent += len(p)
	return len(p), nil
}

// A request still sending /api/apps from a snapshot that a newer one has
// replaced does not keep that snapshot's answer alive: only the part it
// has yet to send (cachedbody's segments), so slow clients do not keep
// every app's JSON of several snapshots whole.
func TestReplacedAppsAnswerNotHeldByItsReaders(t *testing.T) {
	m, clock := largeMonitor(t, 5000, 10, 2)
	h := m.Handler()
	n := m.snap.Load().appsData().Len()
	if n < 3*256<<10 {
		t.Fatalf("the answer is %d bytes, want several segments", n)
	}
	w := &slowWriter{h: http.Header{}, wrote: make(chan struct{}, 1000), resume: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/apps", nil))
	}()
	<-w.wrote // the request is sending the answer's start
	clock.Advance(time.Minute)
	if err := m.Scrape(t.Context()); err != nil {
		t.Fatal(err)
	}
	w.resume <- struct{}{}
	<-w.wrote // and now what follows
	sent := w.sent
	deadline := time.Now().Add(10 * time.Second)
	for !w.freed.Load() && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	close(w.resume)
	<-done
	if !w.freed.Load() || sent >= n {
		t.Errorf("the start of a replaced snapshot's /api/apps answer, sent already, is held while the rest is sent (%d of %d bytes sent, freed %v)",
			sent, n, w.freed.Load())
	}
}
