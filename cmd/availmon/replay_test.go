package main

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/availmon/availmon/hmac"
)

const replaySecret = "0123456789abcdef0123456789abcdef-replay"

// signedWrite is one signed POST /api/scrape-interval, kept so that it can
// be sent again byte for byte.
type signedWrite struct {
	body, ts, auth string
}

func signWrite(t *testing.T, interval string, at time.Time) signedWrite {
	t.Helper()
	body := `{"interval":"` + interval + `"}`
	sig := hmac.Signature([]byte(replaySecret), http.MethodPost, "/api/scrape-interval", []byte(body), at.Unix())
	return signedWrite{body: body, ts: strconv.FormatInt(at.Unix(), 10), auth: hmac.Scheme + " " + sig}
}

// send posts w to the binary at base and returns the status and body.
func (w signedWrite) send(t *testing.T, base string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/api/scrape-interval", strings.NewReader(w.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(hmac.HeaderTimestamp, w.ts)
	req.Header.Set(hmac.HeaderAuthorization, w.auth)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A signed write accepted by the binary is refused after any restart: after
// a SIGKILL (the periodic save, an hour away, never ran, so only the
// replay file remembers it) and after a SIGTERM. A request the binary never
// saw is accepted after each.
func TestBinaryRefusesReplayAfterRestart(t *testing.T) {
	bin := binary(t)
	cfg := hmacConfig(t)
	dir := t.TempDir()
	now := time.Now()
	first, second, third := signWrite(t, "2s", now), signWrite(t, "3s", now), signWrite(t, "4s", now)

	p := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	if code, body := first.send(t, p.base); code != http.StatusOK {
		t.Fatalf("first signed POST = %d %s", code, body)
	}
	if code, body := first.send(t, p.base); code != http.StatusForbidden || !strings.Contains(body, "signature already used") {
		t.Fatalf("replay before any restart = %d %s", code, body)
	}
	p.stop(t, syscall.SIGKILL)

	q := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	if code, body := first.send(t, q.base); code != http.StatusForbidden || !strings.Contains(body, "INVALID_SIGNATURE") ||
		!strings.Contains(body, "signature already used") {
		t.Errorf("replay after kill -9 = %d %s; want 403 INVALID_SIGNATURE, signature already used", code, body)
	}
	if code, body := second.send(t, q.base); code != http.StatusOK {
		t.Errorf("a fresh signed POST after kill -9 = %d %s", code, body)
	}
	q.stop(t, syscall.SIGTERM)

	r := startStored(t, bin, "-config", cfg, "-storage.path", dir)
	for name, w := range map[string]signedWrite{"the first": first, "the second": second} {
		if code, body := w.send(t, r.base); code != http.StatusForbidden || !strings.Contains(body, "signature already used") {
			t.Errorf("replay of %s after SIGTERM = %d %s; want 403", name, code, body)
		}
	}
	if code, body := third.send(t, r.base); code != http.StatusOK {
		t.Errorf("a fresh signed POST after SIGTERM = %d %s", code, body)
	}
}
