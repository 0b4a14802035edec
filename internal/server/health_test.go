package server

import "testing"

func TestDialAddr(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:8080": "127.0.0.1:8080",
		":8080":          "127.0.0.1:8080",
		"0.0.0.0:80":     "127.0.0.1:80",
		"[::]:9000":      "127.0.0.1:9000",
		"[::1]:9000":     "[::1]:9000",
		"example.com:80": "example.com:80",
	} {
		if got := DialAddr(in); got != want {
			t.Errorf("DialAddr(%q) = %q, want %q", in, got, want)
		}
	}
}
