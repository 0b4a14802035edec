package hmac_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	availhmac "github.com/availmon/availmon/hmac"
)

// BenchmarkVerify measures a whole verification, body read included, next
// to BenchmarkHMACFloor: crypto/hmac SHA-256 over the same bytes alone. The
// body is closed after each request, as Middleware and the Monitor do.
func BenchmarkVerify(b *testing.B) { benchVerify(b, true) }

// BenchmarkVerifyNoClose is a caller that never closes the body Verify
// leaves: each request then allocates its own body buffer.
func BenchmarkVerifyNoClose(b *testing.B) { benchVerify(b, false) }

func benchVerify(b *testing.B, closeBody bool) {
	for _, size := range []int{1 << 10, 64 << 10} {
		body := bytes.Repeat([]byte("x"), size)
		b.Run(fmt.Sprintf("body=%dKiB", size>>10), func(b *testing.B) {
			v, err := availhmac.NewVerifier(availhmac.VerifierOptions{Secrets: [][]byte{secret}, Now: fixed(t0),
				DisableReplayProtection: true}) // the same request again and again
			if err != nil {
				b.Fatal(err)
			}
			auth := "HMAC-SHA256 " + availhmac.Signature(secret, "POST", "/api/scrape-interval", body, t0.Unix())
			header := http.Header{"Authorization": {auth}, "X-Timestamp": {strconv.FormatInt(t0.Unix(), 10)}}
			u := &url.URL{Path: "/api/scrape-interval"}
			rd := bytes.NewReader(body)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				rd.Reset(body)
				r := &http.Request{Method: "POST", URL: u, Header: header, Body: io.NopCloser(rd), ContentLength: int64(size)}
				if err := v.Verify(r); err != nil {
					b.Fatal(err)
				}
				if closeBody {
					r.Body.Close()
				}
			}
		})
	}
}

func BenchmarkHMACFloor(b *testing.B) {
	for _, size := range []int{1 << 10, 64 << 10} {
		body := bytes.Repeat([]byte("x"), size)
		b.Run(fmt.Sprintf("body=%dKiB", size>>10), func(b *testing.B) {
			var out [sha256.Size]byte
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				mac := hmac.New(sha256.New, secret)
				mac.Write(body)
				mac.Sum(out[:0])
			}
		})
	}
}
