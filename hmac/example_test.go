package hmac_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/availmon/availmon/hmac"
)

// A client signs one request by hand.
func ExampleSignRequest() {
	secret := []byte("0123456789abcdef0123456789abcdef")
	req, _ := http.NewRequest("POST", "http://127.0.0.1:8080/api/scrape-interval",
		strings.NewReader(`{"interval":"60s"}`))
	req.Header.Set("Content-Type", "application/json")
	if err := hmac.SignRequest(req, secret, time.Unix(1800000000, 0)); err != nil {
		panic(err)
	}
	fmt.Println(req.Header.Get("X-Timestamp"))
	fmt.Println(req.Header.Get("Authorization"))
	// Output:
	// 1800000000
	// HMAC-SHA256 0d21507032e6f06994d175a0f7c7e0d7b1f65c7110a870a77f286d3a20a05b0c
}

// A Go client signs every request through a Transport; a server protects a
// handler with a Verifier's Middleware.
func ExampleVerifier_Middleware() {
	secret := []byte("0123456789abcdef0123456789abcdef")
	v, err := hmac.NewVerifier(hmac.VerifierOptions{Secrets: [][]byte{secret}})
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body) // the body is there, as sent
		fmt.Fprintf(w, "accepted %s", body)
	})))
	defer srv.Close()

	signedClient := &http.Client{Transport: &hmac.Transport{Secret: secret}}
	resp, err := signedClient.Post(srv.URL+"/api/scrape-interval", "application/json", strings.NewReader(`{"interval":"60s"}`))
	if err != nil {
		panic(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(b))

	resp, err = http.Get(srv.URL + "/api/scrape-interval")
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output:
	// 200 accepted {"interval":"60s"}
	// 403
}
