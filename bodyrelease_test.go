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
	testReplacedAnswerNotHeld(t, "/api/apps")
}

// So too /api/availability's answer, made anew for each snapshot (24 MB
// at 100,000 apps over 90 days by app).
func TestReplacedAvailabilityAnswerNotHeldByItsReaders(t *testing.T) {
	testReplacedAnswerNotHeld(t, "/api/availability?window=90d&by=app")
}

func testReplacedAnswerNotHeld(t *testing.T, target string) {
	m, clock := largeMonitor(t, 5000, 10, 2)
	h := m.Handler()
	whole := &discardWriter{h: http.Header{}}
	h.ServeHTTP(whole, httptest.NewRequest(http.MethodGet, target, nil))
	n := whole.n
	if n < 3*256<<10 {
		t.Fatalf("the answer is %d bytes, want several segments", n)
	}
	w := &slowWriter{h: http.Header{}, wrote: make(chan struct{}, 1000), resume: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
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
	// Sent whole, the first Write would be all but the meta.
	if !w.freed.Load() || sent > n/2 {
		t.Errorf("the start of a replaced snapshot's %s answer, sent already, is held while the rest is sent (%d of %d bytes sent, freed %v)",
			target, sent, n, w.freed.Load())
	}
}
