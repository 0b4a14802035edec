package hmac_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon/hmac"
)

// replayVerifier is a Verifier keeping its signatures in path, on the
// clock *now.
func replayVerifier(t *testing.T, path string, now *time.Time, log *bytes.Buffer) *hmac.Verifier {
	t.Helper()
	o := hmac.VerifierOptions{Secrets: [][]byte{secret}, Now: func() time.Time { return *now },
		SkewTolerance: time.Minute, ReplayFile: path}
	if log != nil {
		o.Logger = newTextLogger(log)
	}
	return newVerifier(t, o)
}

// intervalReq is a signed POST /api/scrape-interval; n makes its body, and
// so its signature, its own.
func intervalReq(t *testing.T, n int, at time.Time) *http.Request {
	return signed(t, "POST", "/api/scrape-interval", fmt.Sprintf(`{"interval":"%ds"}`, n), secret, at)
}

// A signature accepted by one Verifier is refused by the next on the same
// file, with no save in between: the append is what keeps it. A request it
// never saw is accepted.
func TestReplayFileSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "replay")
	now := t0
	v1 := replayVerifier(t, path, &now, nil)
	for i := range 3 {
		if err := v1.Verify(intervalReq(t, i, t0)); err != nil {
			t.Fatal(err)
		}
	}
	// v1 is simply dropped, as a killed process would be.
	now = t0.Add(10 * time.Second)
	v2 := replayVerifier(t, path, &now, nil)
	for i := range 3 {
		if err := v2.Verify(intervalReq(t, i, t0)); !errors.Is(err, hmac.ErrReplayed) {
			t.Errorf("replay %d after the restart: %v, want ErrReplayed", i, err)
		}
	}
	if err := v2.Verify(intervalReq(t, 3, t0)); err != nil {
		t.Errorf("a new request after the restart: %v", err)
	}
	// Once the window has passed, a restart forgets them: the file holds
	// only what is still refused.
	now = t0.Add(2 * time.Minute)
	replayVerifier(t, path, &now, nil)
	if fi, err := os.Stat(path); err != nil || fi.Size() != 8 {
		t.Errorf("file after every signature expired: %v, %v; want the 8-byte header alone", fi, err)
	}
}

// What a crash or a bad disk leaves: a torn last record is dropped
// silently, a record that fails its checksum is skipped with a warning, a
// file of another kind is ignored with a warning; the good records still
// count, and appends after a torn record stay aligned.
func TestReplayFileDamaged(t *testing.T) {
	const header, record = 8, 44
	tests := []struct {
		name    string
		damage  func(b []byte) []byte
		refused []bool // per request 0, 1, 2: still refused after the damage
		warns   bool
	}{
		{"torn last record", func(b []byte) []byte { return append(b, make([]byte, record/2)...) }, []bool{true, true, true}, false},
		{"bad checksum", func(b []byte) []byte { b[header+record+5] ^= 1; return b }, []bool{true, false, true}, true},
		{"another file", func(b []byte) []byte { return append([]byte("PK\x03\x04"), b...) }, []bool{false, false, false}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "replay")
			now := t0
			v1 := replayVerifier(t, path, &now, nil)
			for i := range 3 {
				if err := v1.Verify(intervalReq(t, i, t0)); err != nil {
					t.Fatal(err)
				}
			}
			b, err := os.ReadFile(path)
			if err != nil || len(b) != header+3*record {
				t.Fatalf("file of %d bytes (%v), want %d", len(b), err, header+3*record)
			}
			if err := os.WriteFile(path, tt.damage(b), 0o600); err != nil {
				t.Fatal(err)
			}
			var log bytes.Buffer
			v2 := replayVerifier(t, path, &now, &log)
			if got := strings.Contains(log.String(), "level=WARN"); got != tt.warns {
				t.Errorf("warning logged: %v, want %v:\n%s", got, tt.warns, log.String())
			}
			if err := v2.Verify(intervalReq(t, 9, t0)); err != nil {
				t.Fatalf("a new request: %v", err)
			}
			// A third start reads what the second wrote after the damage.
			v3 := replayVerifier(t, path, &now, nil)
			for i, want := range append(tt.refused, true) {
				n := i
				if i == 3 {
					n = 9
				}
				err := v3.Verify(intervalReq(t, n, t0))
				if got := errors.Is(err, hmac.ErrReplayed); got != want {
					t.Errorf("request %d refused as a replay: %v (%v), want %v", n, got, err, want)
				}
			}
		})
	}
}

// When the signature cannot be made durable, the request is refused with
// ErrReplayFile (the Middleware answers 503), and it is not remembered:
// once the file can be written again the same request is accepted.
func TestReplayFileUnwritable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "replay")
	now := t0
	v := replayVerifier(t, path, &now, nil)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o700); err != nil { // a directory cannot be appended to
		t.Fatal(err)
	}
	err := v.Verify(intervalReq(t, 1, t0))
	if !errors.Is(err, hmac.ErrReplayFile) {
		t.Fatalf("Verify with an unwritable file: %v, want ErrReplayFile", err)
	}
	rec := serveMiddleware(v, intervalReq(t, 2, t0))
	if rec != http.StatusServiceUnavailable {
		t.Errorf("Middleware: %d, want 503", rec)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("AVMRPL\x00\x01"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := v.Verify(intervalReq(t, 1, t0)); err != nil {
		t.Errorf("the same request once the file is writable: %v", err)
	}

	// A file that cannot be read or created stops the Verifier from
	// being made at all.
	_, err = hmac.NewVerifier(hmac.VerifierOptions{Secrets: [][]byte{secret}, ReplayFile: filepath.Join(dir, "no", "such", "dir", "replay")})
	if err == nil {
		t.Error("NewVerifier with a replay file in a missing directory: no error")
	}
}

// The file stays about as large as the signatures still refused: appends
// rewrite it once most of its records have expired.
func TestReplayFileCompacts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "replay")
	now := t0
	v := replayVerifier(t, path, &now, nil)
	hmac.CompactReplayFileAt(v, 64)
	maxSize := int64(0)
	const n = 600
	for i := range n {
		now = t0.Add(time.Duration(i) * 2 * time.Second) // 30 live at a time
		if err := v.Verify(intervalReq(t, i, now)); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		maxSize = max(maxSize, fi.Size())
	}
	// 64 records at least before a rewrite, or twice the live ones.
	if limit := int64(8 + 80*44); maxSize > limit {
		t.Errorf("the file grew to %d bytes, want at most %d", maxSize, limit)
	}
	// Everything still live is still refused after a restart.
	v2 := replayVerifier(t, path, &now, nil)
	for i := n - 25; i < n; i++ {
		at := t0.Add(time.Duration(i) * 2 * time.Second)
		if err := v2.Verify(intervalReq(t, i, at)); !errors.Is(err, hmac.ErrReplayed) {
			t.Fatalf("request %d after the restart: %v, want ErrReplayed", i, err)
		}
	}
}

// serveMiddleware answers r through v's Middleware and returns the status.
func serveMiddleware(v *hmac.Verifier, r *http.Request) int {
	rec := &statusRecorder{}
	v.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(rec, r)
	return rec.status
}

type statusRecorder struct {
	status int
	header http.Header
}

func (s *statusRecorder) Header() http.Header {
	if s.header == nil {
		s.header = http.Header{}
	}
	return s.header
}
func (s *statusRecorder) Write(b []byte) (int, error) { return len(b), nil }
func (s *statusRecorder) WriteHeader(code int)        { s.status = code }

// FuzzReplayFile: NewVerifier reads any file without panicking; it either
// refuses it or starts, and a Verifier that started accepts a new request
// and still refuses it after another start.
func FuzzReplayFile(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("AVMRPL\x00\x01"))
	f.Add(append([]byte("AVMRPL\x00\x01"), bytes.Repeat([]byte{0xff}, 44*2+3)...))
	f.Add([]byte("AVMRPL\x00\x02garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "replay")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		now := t0
		v := replayVerifier(t, path, &now, nil)
		err := v.Verify(intervalReq(t, 1, t0))
		if err != nil && !errors.Is(err, hmac.ErrReplayed) {
			t.Fatalf("Verify: %v", err)
		}
		v2 := replayVerifier(t, path, &now, nil)
		if err := v2.Verify(intervalReq(t, 1, t0)); !errors.Is(err, hmac.ErrReplayed) {
			t.Fatalf("after a restart: %v, want ErrReplayed", err)
		}
	})
}
