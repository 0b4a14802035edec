package hmac_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/availmon/availmon/hmac"
)

// FuzzVerify feeds arbitrary headers, paths and bodies to Verify: it must
// never panic, must classify every refusal as one of its sentinel errors,
// must leave the body intact, and must accept only what was signed.
func FuzzVerify(f *testing.F) {
	good := hmac.Signature(secret, "POST", "/api/scrape-interval", []byte(`{"interval":"60s"}`), t0.Unix())
	f.Add("POST", "/api/scrape-interval", `{"interval":"60s"}`, "HMAC-SHA256 "+good, "1795435200")
	f.Add("GET", "/api/apps", "", "HMAC-SHA256 zz", "1795435200")
	f.Add("GET", "/a\nb", "", "", "")
	f.Add("PUT", "/", "x", "HMAC-SHA256", "-1")
	f.Add("GET", "/%zz", "", "hmac-sha256 "+strings.Repeat("A", 64), "99999999999999999999")
	f.Fuzz(func(t *testing.T, method, path, body, auth, ts string) {
		v, err := hmac.NewVerifier(hmac.VerifierOptions{Secrets: [][]byte{secret}, Now: fixed(t0), MaxBodyBytes: 1 << 10})
		if err != nil {
			t.Fatal(err)
		}
		r := &http.Request{Method: method, URL: &url.URL{Path: path}, Header: http.Header{},
			Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body))}
		if auth != "" {
			r.Header["Authorization"] = []string{auth}
		}
		if ts != "" {
			r.Header["X-Timestamp"] = []string{ts}
		}
		err = v.Verify(r)
		if err == nil {
			got, _ := io.ReadAll(r.Body)
			if string(got) != body {
				t.Fatalf("accepted, but the body became %q", got)
			}
			want := "HMAC-SHA256 " + hmac.Signature(secret, method, path, []byte(body), t0.Unix())
			if !strings.EqualFold(auth, want) {
				t.Fatalf("accepted a request whose Authorization %q is not its signature", auth)
			}
			return
		}
		known := []error{hmac.ErrMissingHeaders, hmac.ErrInvalidSignature, hmac.ErrTimestamp, hmac.ErrBodyTooLarge, hmac.ErrBadRequest}
		for _, k := range known {
			if errors.Is(err, k) {
				return
			}
		}
		t.Fatalf("Verify returned an unclassified error: %v", err)
	})
}

// A middleware test through httptest, for requests a client library would
// never produce.
func TestMiddlewareRefusesWithStatus(t *testing.T) {
	v := newVerifier(t, hmac.VerifierOptions{Secrets: [][]byte{secret}, Now: fixed(t0)})
	h := v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("handler reached") }))
	for _, tt := range []struct {
		req  *http.Request
		want int
	}{
		{httptest.NewRequest("GET", "/api/apps", nil), http.StatusForbidden},
		{signed(t, "POST", "/x", strings.Repeat("a", hmac.DefaultMaxBodyBytes+1), secret, t0), http.StatusRequestEntityTooLarge},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, tt.req)
		if rec.Code != tt.want {
			t.Errorf("%s %s: %d, want %d", tt.req.Method, tt.req.URL.Path, rec.Code, tt.want)
		}
	}
}
