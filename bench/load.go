package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// loadEndpoint drives ep on availmon and on a ceiling server that writes a
// precomputed copy of availmon's answer (same status, headers that matter
// and body bytes).
func loadEndpoint(ctx context.Context, o options, base string, ep endpoint) (row, error) {
	r := row{endpoint: ep}
	header := map[string]string{}
	for k, v := range ep.Header {
		header[k] = v
	}
	if _, ok := header["If-None-Match"]; ok {
		res, err := http.Get(base + ep.Path)
		if err != nil {
			return r, err
		}
		io.Copy(io.Discard, res.Body) //nolint:errcheck
		res.Body.Close()
		header["If-None-Match"] = res.Header.Get("ETag")
		r.Header = header
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+ep.Path, nil)
	if err != nil {
		return r, err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	// The transport must not decompress: the ceiling serves the same bytes.
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		return r, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return r, err
	}
	r.Bytes, r.Status = len(body), res.StatusCode
	ceilURL, stop, err := serve(ctx, ceiling(res, body))
	if err != nil {
		return r, err
	}
	defer stop()

	if r.Availmon, r.AvailmonBad, err = wrk(ctx, o, base+ep.Path, header); err != nil {
		return r, err
	}
	if r.Ceiling, _, err = wrk(ctx, o, ceilURL+ep.Path, header); err != nil {
		return r, err
	}
	if r.Ceiling > 0 {
		r.Ratio = r.Availmon / r.Ceiling
	}
	return r, nil
}

// ceiling is the fastest a Go server can answer with these bytes: no
// routing, no encoding, one Write.
func ceiling(res *http.Response, body []byte) http.Handler {
	status := res.StatusCode
	var keep [][2]string
	for _, k := range []string{"Content-Type", "Content-Encoding", "ETag", "Vary", "Cache-Control"} {
		if v := res.Header.Get(k); v != "" {
			keep = append(keep, [2]string{k, v})
		}
	}
	length := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		for _, kv := range keep {
			h[kv[0]] = []string{kv[1]}
		}
		if status != http.StatusNotModified {
			h["Content-Length"] = []string{length}
		}
		w.WriteHeader(status)
		w.Write(body) //nolint:errcheck
	})
}

var (
	rpsRe = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	badRe = regexp.MustCompile(`Non-2xx or 3xx responses:\s+([0-9]+)`)
)

// wrk runs wrk against url and returns its requests per second and the
// count of answers that were not 2xx or 3xx.
func wrk(ctx context.Context, o options, url string, header map[string]string) (float64, int, error) {
	args := []string{"-t" + strconv.Itoa(o.threads), "-c" + strconv.Itoa(o.conns), "-d" + o.duration.String()}
	for k, v := range header {
		args = append(args, "-H", k+": "+v)
	}
	args = append(args, url)
	out, err := exec.CommandContext(ctx, o.wrk, args...).CombinedOutput()
	if err != nil {
		return 0, 0, fmt.Errorf("%s %s: %v\n%s", o.wrk, strings.Join(args, " "), err, out)
	}
	m := rpsRe.FindSubmatch(out)
	if m == nil {
		return 0, 0, fmt.Errorf("no Requests/sec in wrk's output:\n%s", out)
	}
	rps, err := strconv.ParseFloat(string(m[1]), 64)
	bad := 0
	if b := badRe.FindSubmatch(out); b != nil {
		bad, _ = strconv.Atoi(string(b[1]))
	}
	return rps, bad, err
}
