package availmon

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/availmon/availmon/hmac"
	"github.com/google/go-cmp/cmp"
)

// The state a save encodes straight from the monitor is, byte for byte,
// the encoding of a copy of it: histories that wrapped around their ring,
// error texts, day windows, minute buckets, the interval set at run time
// and the replay cache, whatever capacity the buffer starts with.
func TestEncodeLiveMatchesCopy(t *testing.T) {
	clock := newFakeClock(t0)
	st := &memStore{}
	v, err := hmac.NewVerifier(hmac.VerifierOptions{Secrets: [][]byte{authSecret}, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	tm := newStoreMonitor(t, st, clock, func(o *Options) { o.Authenticator, o.HistorySize = v, 4 })
	runCycles(t, tm, 9) // more cycles than the ring holds, across an hour
	// Error texts that change, come back and leave the ring, so that the
	// history's numbering of them differs from their order of first use.
	for i := range 7 {
		tm.src.SetResult("search", Result{Status: StatusUnavailable, Err: fmt.Errorf("dial tcp 10.0.0.1:%d: i/o timeout", 40000+i%5)})
		tm.src.SetResult("checkout", Result{Status: StatusDown, ResponseTime: time.Duration(i) * time.Millisecond, Err: errors.New("HTTP 500")})
		tm.scrape(t)
		clock.Advance(time.Duration(40+i) * time.Second)
	}
	req := signedReq(t, http.MethodPost, "/api/scrape-interval", `{"interval":"45s"}`, authSecret, clock.Now())
	if rec := serve(tm.h, req); rec.Code != http.StatusOK {
		t.Fatalf("POST /api/scrape-interval = %d %s", rec.Code, rec.Body)
	}
	want := encodeState(tm.copyState())
	for _, hint := range []int{0, 1, len(want), 2 * len(want)} {
		got := tm.encodeLive(hint)
		if !bytes.Equal(got, want) {
			t.Fatalf("encodeLive(%d) = %d bytes unlike the copy's %d", hint, len(got), len(want))
		}
	}
	s, err := decodeState(want)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Replay) == 0 || s.Interval == nil || len(s.Apps[0].Checks) != 4 {
		t.Errorf("the fixture misses a part: %d replay entries, interval %v, %d checks", len(s.Replay), s.Interval, len(s.Apps[0].Checks))
	}
	c := tm.copyState()
	if diff := cmp.Diff(c, s, stateCmp); diff != "" {
		t.Errorf("the live encoding decodes unlike the copy (-copy +decoded):\n%s", diff)
	}
}

// Before the first cycle nothing is checked: the encodings still agree.
func TestEncodeLiveMatchesCopyFresh(t *testing.T) {
	tm := newStoreMonitor(t, &memStore{}, newFakeClock(t0))
	if got, want := tm.encodeLive(0), encodeState(tm.copyState()); !bytes.Equal(got, want) {
		t.Fatalf("encodeLive = %d bytes unlike the copy's %d", len(got), len(want))
	}
}
