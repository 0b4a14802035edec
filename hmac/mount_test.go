package hmac_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon/hmac"
)

// Behind http.StripPrefix the Verifier checks the path the client called
// (the request URI), which is what the client signed, and refuses a
// signature made for the stripped path.
func TestMiddlewareUnderStripPrefix(t *testing.T) {
	v := newVerifier(t, hmac.VerifierOptions{Secrets: [][]byte{secret}})
	mux := http.NewServeMux()
	mux.Handle("/prefix/", http.StripPrefix("/prefix", v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.URL.Path)
	}))))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	client := &http.Client{Transport: &hmac.Transport{Secret: secret}}
	resp, err := client.Post(srv.URL+"/prefix/api/x%20y?q=1", "text/plain", strings.NewReader("body"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(b) != "/api/x y" {
		t.Errorf("signed through the prefix: %d %s", resp.StatusCode, b)
	}

	now := time.Now()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/prefix/api/x", strings.NewReader("body"))
	req.Header.Set(hmac.HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(hmac.HeaderAuthorization, hmac.Scheme+" "+hmac.Signature(secret, http.MethodPost, "/api/x", []byte("body"), now.Unix()))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a signature for the stripped path: %d, want 403", resp.StatusCode)
	}
}
