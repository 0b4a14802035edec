package hmac_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/availmon/availmon/hmac"
	"github.com/google/go-cmp/cmp"
)

type vector struct {
	Name, Secret, Method, Path, Body, Timestamp, Canonical, Signature, Authorization string
}

func loadVectors(t *testing.T, path string) []vector {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var vs []vector
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(vs) == 0 {
		t.Fatalf("%s has no vectors", path)
	}
	return vs
}

// TestVectors checks the known answers, computed independently of this
// code: the package's own copy always, and the shared original when the
// checkout has it beside the repository.
func TestVectors(t *testing.T) {
	files := []string{"testdata/hmac-vectors.json"}
	const shared = "../../shared/testdata/hmac-vectors.json"
	if _, err := os.Stat(shared); err == nil {
		files = append(files, shared)
	} else {
		t.Logf("%s not present; testing the package's copy only", shared)
	}
	for _, f := range files {
		for _, v := range loadVectors(t, f) {
			t.Run(f+"/"+v.Name, func(t *testing.T) {
				ts, err := strconv.ParseInt(v.Timestamp, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				if got := v.Method + "\n" + v.Path + "\n" + v.Body + "\n" + v.Timestamp; got != v.Canonical {
					t.Fatalf("the vector's canonical request is not METHOD\\nPATH\\nBODY\\nTIMESTAMP: %q", v.Canonical)
				}
				if got := hmac.Signature([]byte(v.Secret), v.Method, v.Path, []byte(v.Body), ts); got != v.Signature {
					t.Errorf("Signature = %s, want %s", got, v.Signature)
				}
				req := httptest.NewRequest(v.Method, "http://example.test"+pathURL(v.Path), strings.NewReader(v.Body))
				if err := hmac.SignRequest(req, []byte(v.Secret), time.Unix(ts, 0)); err != nil {
					t.Fatal(err)
				}
				got := map[string]string{"auth": req.Header.Get(hmac.HeaderAuthorization), "ts": req.Header.Get(hmac.HeaderTimestamp)}
				want := map[string]string{"auth": v.Authorization, "ts": v.Timestamp}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("SignRequest headers (-want +got):\n%s", d)
				}
				// And the verifier accepts it at that time.
				ver := newVerifier(t, hmac.VerifierOptions{Secrets: [][]byte{[]byte(v.Secret)}, Now: fixed(time.Unix(ts, 0))})
				if err := ver.Verify(req); err != nil {
					t.Errorf("Verify of the signed vector: %v", err)
				}
			})
		}
	}
}

// pathURL escapes a decoded path for a request URL.
func pathURL(p string) string {
	return (&urlPath{p}).String()
}

type urlPath struct{ p string }

func (u *urlPath) String() string {
	var b strings.Builder
	for _, c := range []byte(u.p) {
		if c == ' ' || c >= 0x80 {
			b.WriteString("%" + strings.ToUpper(strconv.FormatInt(int64(c)+0x100, 16)[1:]))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

var secret = []byte("0123456789abcdef0123456789abcdef")

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func fixed(t time.Time) func() time.Time { return func() time.Time { return t } }

func newVerifier(t testing.TB, o hmac.VerifierOptions) *hmac.Verifier {
	t.Helper()
	v, err := hmac.NewVerifier(o)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func signed(t testing.TB, method, target, body string, key []byte, at time.Time) *http.Request {
	t.Helper()
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if err := hmac.SignRequest(r, key, at); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestVerifyRules(t *testing.T) {
	body := `{"interval":"60s"}`
	tests := []struct {
		name   string
		req    func() *http.Request
		want   error
		errHas string
	}{
		{"valid", func() *http.Request { return signed(t, "POST", "/api/scrape-interval", body, secret, t0) }, nil, ""},
		{"query string is not signed", func() *http.Request {
			r := signed(t, "GET", "/api/apps", "", secret, t0)
			r.URL.RawQuery = "x=1"
			return r
		}, nil, ""},
		{"lowercase scheme accepted", func() *http.Request {
			r := signed(t, "POST", "/api/scrape-interval", body, secret, t0)
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), "HMAC-SHA256", "hmac-sha256", 1))
			return r
		}, nil, ""},
		{"no headers", func() *http.Request {
			return httptest.NewRequest("POST", "/api/scrape-interval", strings.NewReader(body))
		}, hmac.ErrMissingHeaders, "Authorization and X-Timestamp"},
		{"no timestamp", func() *http.Request {
			r := signed(t, "POST", "/api/scrape-interval", body, secret, t0)
			r.Header.Del("X-Timestamp")
			return r
		}, hmac.ErrMissingHeaders, "X-Timestamp"},
		{"no authorization", func() *http.Request {
			r := signed(t, "POST", "/api/scrape-interval", body, secret, t0)
			r.Header.Del("Authorization")
			return r
		}, hmac.ErrMissingHeaders, "Authorization"},
		{"wrong secret", func() *http.Request {
			return signed(t, "POST", "/api/scrape-interval", body, []byte("another-secret-another-secret-xx"), t0)
		}, hmac.ErrInvalidSignature, "does not match"},
		{"tampered body", func() *http.Request {
			r := signed(t, "POST", "/api/scrape-interval", body, secret, t0)
			r.Body = io.NopCloser(strings.NewReader(`{"interval":"61s"}`))
			return r
		}, hmac.ErrInvalidSignature, "does not match"},
		{"tampered path", func() *http.Request {
			r := signed(t, "POST", "/api/scrape-interval", body, secret, t0)
			r.URL.Path = "/api/scrape-intervaL"
			r.RequestURI = r.URL.Path // what the server received
			return r
		}, hmac.ErrInvalidSignature, "does not match"},
		{"tampered method", func() *http.Request {
			r := signed(t, "POST", "/api/scrape-interval", body, secret, t0)
			r.Method = "PUT"
			return r
		}, hmac.ErrInvalidSignature, "does not match"},
		{"tampered timestamp", func() *http.Request {
			r := signed(t, "POST", "/api/scrape-interval", body, secret, t0)
			r.Header.Set("X-Timestamp", strconv.FormatInt(t0.Unix()+1, 10))
			return r
		}, hmac.ErrInvalidSignature, "does not match"},
		{"wrong scheme", func() *http.Request {
			r := signed(t, "POST", "/api/scrape-interval", body, secret, t0)
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), "HMAC-SHA256", "Bearer", 1))
			return r
		}, hmac.ErrInvalidSignature, "HMAC-SHA256"},
		{"no scheme", func() *http.Request {
			r := signed(t, "POST", "/api/scrape-interval", body, secret, t0)
			r.Header.Set("Authorization", "deadbeef")
			return r
		}, hmac.ErrInvalidSignature, "HMAC-SHA256"},
		{"non-hex signature", func() *http.Request {
			r := signed(t, "POST", "/api/scrape-interval", body, secret, t0)
			r.Header.Set("Authorization", "HMAC-SHA256 "+strings.Repeat("zz", 32))
			return r
		}, hmac.ErrInvalidSignature, "not hex"},
		{"short signature", func() *http.Request {
			r := signed(t, "POST", "/api/scrape-interval", body, secret, t0)
			r.Header.Set("Authorization", "HMAC-SHA256 abcd")
			return r
		}, hmac.ErrInvalidSignature, "64 hex digits"},
		{"too old", func() *http.Request {
			return signed(t, "POST", "/api/scrape-interval", body, secret, t0.Add(-301*time.Second))
		}, hmac.ErrTimestamp, "by more than 5m0s"},
		{"too new", func() *http.Request {
			return signed(t, "POST", "/api/scrape-interval", body, secret, t0.Add(301*time.Second))
		}, hmac.ErrTimestamp, "by more than 5m0s"},
		{"at the edge", func() *http.Request {
			return signed(t, "POST", "/api/scrape-interval", body, secret, t0.Add(-300*time.Second))
		}, nil, ""},
		{"non-decimal timestamp", func() *http.Request {
			r := signed(t, "POST", "/api/scrape-interval", body, secret, t0)
			r.Header.Set("X-Timestamp", "1e9")
			return r
		}, hmac.ErrTimestamp, "not decimal"},
		{"signed timestamp", func() *http.Request {
			r := signed(t, "POST", "/api/scrape-interval", body, secret, t0)
			r.Header.Set("X-Timestamp", "+"+r.Header.Get("X-Timestamp"))
			return r
		}, hmac.ErrTimestamp, "not decimal"},
		{"absurd timestamp", func() *http.Request {
			r := signed(t, "POST", "/api/scrape-interval", body, secret, t0)
			r.Header.Set("X-Timestamp", strings.Repeat("9", 40))
			return r
		}, hmac.ErrTimestamp, "not decimal"},
		{"line feed in path", func() *http.Request {
			r := signed(t, "POST", "/api/scrape-interval", body, secret, t0)
			r.URL.Path = "/api/scrape-interval\n1700000000"
			r.RequestURI = "/api/scrape-interval%0A1700000000" // what the server received
			return r
		}, hmac.ErrBadRequest, "line feed"},
		{"body too large by Content-Length", func() *http.Request {
			return signed(t, "POST", "/api/scrape-interval", strings.Repeat(" ", hmac.DefaultMaxBodyBytes+1), secret, t0)
		}, hmac.ErrBodyTooLarge, "at most 65536"},
		{"body too large without Content-Length", func() *http.Request {
			r := signed(t, "POST", "/api/scrape-interval", strings.Repeat(" ", hmac.DefaultMaxBodyBytes+1), secret, t0)
			r.ContentLength = -1
			return r
		}, hmac.ErrBodyTooLarge, "at most 65536"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newVerifier(t, hmac.VerifierOptions{Secrets: [][]byte{secret}, Now: fixed(t0)})
			err := v.Verify(tt.req())
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
			if tt.errHas != "" && !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("error %q does not say %q", err, tt.errHas)
			}
		})
	}
}

func TestTimestampErrorDetails(t *testing.T) {
	v := newVerifier(t, hmac.VerifierOptions{Secrets: [][]byte{secret}, Now: fixed(t0), SkewTolerance: time.Minute})
	err := v.Verify(signed(t, "GET", "/api/apps", "", secret, t0.Add(-2*time.Minute)))
	var te *hmac.TimestampError
	if !errors.As(err, &te) {
		t.Fatalf("Verify = %v, want a *TimestampError", err)
	}
	want := hmac.TimestampError{ServerTime: t0, RequestTime: t0.Add(-2 * time.Minute), Tolerance: time.Minute}
	if d := cmp.Diff(want, *te); d != "" {
		t.Errorf("TimestampError (-want +got):\n%s", d)
	}
	if !errors.Is(err, hmac.ErrTimestamp) {
		t.Error("a TimestampError is not ErrTimestamp")
	}
}

func TestVerifyLeavesBodyForNextHandler(t *testing.T) {
	body := `{"interval": "90s"}` + strings.Repeat(" ", 5000)
	v := newVerifier(t, hmac.VerifierOptions{Secrets: [][]byte{secret}, Now: fixed(t0)})
	r := signed(t, "POST", "/api/scrape-interval", body, secret, t0)
	if err := v.Verify(r); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r.Body)
	if err != nil || string(got) != body {
		t.Fatalf("body after Verify = %q, %v; want the original %d bytes", truncate(got), err, len(body))
	}
}

func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

func TestRotation(t *testing.T) {
	old, next := []byte("old-secret-old-secret-old-secret"), []byte("new-secret-new-secret-new-secret")
	v := newVerifier(t, hmac.VerifierOptions{Secrets: [][]byte{next, old}, Now: fixed(t0)})
	for _, key := range [][]byte{old, next} {
		if err := v.Verify(signed(t, "GET", "/api/apps", "", key, t0)); err != nil {
			t.Errorf("signed with %q: %v", key, err)
		}
	}
	only := newVerifier(t, hmac.VerifierOptions{Secrets: [][]byte{next}, Now: fixed(t0)})
	if err := only.Verify(signed(t, "GET", "/api/apps", "", old, t0)); !errors.Is(err, hmac.ErrInvalidSignature) {
		t.Errorf("the removed secret: %v, want ErrInvalidSignature", err)
	}
}

func TestReplay(t *testing.T) {
	now := t0
	clock := func() time.Time { return now }
	v := newVerifier(t, hmac.VerifierOptions{Secrets: [][]byte{secret}, Now: clock, SkewTolerance: time.Minute})
	r1 := signed(t, "POST", "/api/scrape-interval", `{"interval":"60s"}`, secret, t0)
	r2 := r1.Clone(r1.Context())
	r2.Body = io.NopCloser(strings.NewReader(`{"interval":"60s"}`))
	if err := v.Verify(r1); err != nil {
		t.Fatal(err)
	}
	err := v.Verify(r2)
	if !errors.Is(err, hmac.ErrReplayed) || !errors.Is(err, hmac.ErrInvalidSignature) || !strings.Contains(err.Error(), "already used") {
		t.Fatalf("replay = %v, want ErrReplayed (an ErrInvalidSignature)", err)
	}
	// Past the window the timestamp check refuses it instead.
	now = t0.Add(61 * time.Second)
	r3 := r1.Clone(r1.Context())
	r3.Body = io.NopCloser(strings.NewReader(`{"interval":"60s"}`))
	if err := v.Verify(r3); !errors.Is(err, hmac.ErrTimestamp) {
		t.Fatalf("replay after the window = %v, want ErrTimestamp", err)
	}
	// A failed verification records nothing.
	bad := signed(t, "GET", "/x", "", []byte("another-secret-another-secret-xx"), now)
	if err := v.Verify(bad); !errors.Is(err, hmac.ErrInvalidSignature) {
		t.Fatal(err)
	}

	off := newVerifier(t, hmac.VerifierOptions{Secrets: [][]byte{secret}, Now: fixed(t0), DisableReplayProtection: true})
	for i := range 3 {
		r := signed(t, "GET", "/api/apps", "", secret, t0)
		if err := off.Verify(r); err != nil {
			t.Fatalf("use %d without replay protection: %v", i, err)
		}
	}
}

// TestReplayCacheBounded fills a small cache with live signatures: memory
// stays bounded and the newest are still refused as replays.
func TestReplayCacheBounded(t *testing.T) {
	now := t0
	v := newVerifier(t, hmac.VerifierOptions{Secrets: [][]byte{secret}, Now: func() time.Time { return now }, ReplayCacheSize: 8})
	var reqs []*http.Request
	for i := range 20 {
		r := signed(t, "GET", "/api/apps/"+strconv.Itoa(i), "", secret, t0)
		reqs = append(reqs, r)
		if err := v.Verify(r); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if n := hmac.ReplayCacheLen(v); n != 8 {
		t.Errorf("cache holds %d signatures, want the bound 8", n)
	}
	for _, r := range reqs[12:] {
		if err := v.Verify(r); !errors.Is(err, hmac.ErrReplayed) {
			t.Errorf("a recent signature replayed: %v, want ErrReplayed", err)
		}
	}
	// Entries older than the window are dropped as new ones arrive.
	now = t0.Add(hmac.DefaultSkew + time.Second)
	if err := v.Verify(signed(t, "GET", "/api/apps", "", secret, now)); err != nil {
		t.Fatal(err)
	}
	if n := hmac.ReplayCacheLen(v); n != 1 {
		t.Errorf("after the window the cache holds %d signatures, want 1", n)
	}
}

func TestSignRequestRestoresBody(t *testing.T) {
	body := "exact \x00 bytes\n\r\n"
	r, err := http.NewRequest("POST", "http://example.test/api/scrape-interval?q=1", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := hmac.SignRequest(r, secret, t0); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, _ := io.ReadAll(r.Body)
		if string(got) != body {
			t.Fatalf("body after signing = %q, want %q", got, body)
		}
		r.Body, _ = r.GetBody()
	}
	if r.ContentLength != int64(len(body)) {
		t.Errorf("ContentLength = %d, want %d", r.ContentLength, len(body))
	}
	want := hmac.Signature(secret, "POST", "/api/scrape-interval", []byte(body), t0.Unix())
	if got := r.Header.Get("Authorization"); got != "HMAC-SHA256 "+want {
		t.Errorf("Authorization = %q, want the signature of the path without the query", got)
	}
}

func TestTransport(t *testing.T) {
	v := newVerifier(t, hmac.VerifierOptions{Secrets: [][]byte{secret}})
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		io.WriteString(w, "ok")
	})))
	defer srv.Close()

	client := &http.Client{Transport: &hmac.Transport{Secret: secret, Base: srv.Client().Transport}}
	req, _ := http.NewRequest("POST", srv.URL+"/api/scrape-interval", bytes.NewBufferString(`{"interval":"60s"}`))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("signed POST: %s", resp.Status)
	}
	if req.Header.Get("Authorization") != "" {
		t.Error("Transport modified the caller's request")
	}
	resp, err = client.Get(srv.URL + "/api/apps?x=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("signed GET: %s", resp.Status)
	}
	// Without the transport the middleware refuses.
	resp, err = srv.Client().Get(srv.URL + "/api/apps")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("unsigned GET: %s, want 403", resp.Status)
	}
	if d := cmp.Diff([]string{`{"interval":"60s"}`, ""}, bodies); d != "" {
		t.Errorf("bodies the handler read (-want +got):\n%s", d)
	}
}

func TestCheckSecretAndNewVerifier(t *testing.T) {
	if err := hmac.CheckSecret([]byte("short"), false); err == nil || !strings.Contains(err.Error(), "at least 32") {
		t.Errorf("short secret: %v", err)
	}
	if err := hmac.CheckSecret([]byte("short"), true); err != nil {
		t.Errorf("short secret, allowed: %v", err)
	}
	if err := hmac.CheckSecret(nil, true); err == nil {
		t.Error("empty secret accepted")
	}
	if err := hmac.CheckSecret(secret, false); err != nil {
		t.Errorf("32-byte secret: %v", err)
	}
	for _, o := range []hmac.VerifierOptions{{}, {Secrets: [][]byte{nil}}, {Secrets: [][]byte{secret}, SkewTolerance: -1}} {
		if _, err := hmac.NewVerifier(o); err == nil {
			t.Errorf("NewVerifier(%+v) accepted", o)
		}
	}
}

func TestDebugLogNeverHasSecret(t *testing.T) {
	var logs bytes.Buffer
	v := newVerifier(t, hmac.VerifierOptions{Secrets: [][]byte{secret}, Now: fixed(t0), Debug: true,
		Logger: newTextLogger(&logs)})
	if err := v.Verify(signed(t, "POST", "/api/scrape-interval", `{"interval":"60s"}`, secret, t0)); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	for _, want := range []string{"canonical_request", `POST\n/api/scrape-interval\n{\"interval\":\"60s\"}\n`, "given_signature"} {
		if !strings.Contains(out, want) {
			t.Errorf("debug log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, string(secret)) {
		t.Errorf("debug log holds the secret:\n%s", out)
	}
}

func newTextLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, nil))
}

// TestMiddlewareRecyclesBody: Middleware closes the body it handed on once
// the handler is done (the server would close only its own), so the buffer
// goes back to the pool; a handler that wrongly keeps the body past its
// return reads nothing rather than another request's bytes.
func TestMiddlewareRecyclesBody(t *testing.T) {
	v := newVerifier(t, hmac.VerifierOptions{Secrets: [][]byte{secret}})
	kept := make(chan io.Reader, 1)
	srv := httptest.NewServer(v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kept <- r.Body
	})))
	defer srv.Close()
	client := &http.Client{Transport: &hmac.Transport{Secret: secret}}
	resp, err := client.Post(srv.URL+"/x", "application/json", strings.NewReader(`{"interval":"60s"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if b, _ := io.ReadAll(<-kept); len(b) != 0 {
		t.Errorf("the body still reads %q after the handler returned: it was not closed", b)
	}
}
