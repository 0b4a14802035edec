package server

import (
	"context"
	"io"
	"net"
	"net/http"
)

// healthBodyLimit bounds what the health check reads of an answer: /health
// answers about 100 bytes, and the check must not hang on a stranger that
// happens to hold the port.
const healthBodyLimit = 4 << 10

// HealthURL is the /health a client on this host asks of a server
// listening on listen (DialAddr).
func HealthURL(listen string) string {
	return "http://" + DialAddr(listen) + "/health"
}

// GetHealth returns the status of GET url, for `availmon healthcheck`, the
// container image's HEALTHCHECK, which has no shell and no curl. It uses
// no proxy: a container's HTTP_PROXY must not carry a request for the
// loopback address elsewhere.
func GetHealth(ctx context.Context, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	client := &http.Client{
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		// /health never redirects; a redirect is somebody else.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, healthBodyLimit))
	return resp.StatusCode, nil
}

// DialAddr is how a client on this host reaches a server listening on
// hostport: an unspecified host (":8080", "0.0.0.0:8080", "[::]:8080")
// is reached on the IPv4 loopback address.
func DialAddr(hostport string) string {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return hostport
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
