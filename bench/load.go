package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
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
	_, conditional := header["If-None-Match"]
	var res *http.Response
	var body []byte
	// A conditional request needs the current tag; a cycle that lands
	// between taking it and asking makes the answer a 200: ask again.
	for try := 0; ; try++ {
		if conditional {
			tag, err := currentETag(base + ep.Path)
			if err != nil {
				return r, err
			}
			header["If-None-Match"] = tag
			r.Header = header
		}
		var err error
		if res, body, err = sample(ctx, base+ep.Path, header); err != nil {
			return r, err
		}
		if !conditional || res.StatusCode == http.StatusNotModified || try == 4 {
			break
		}
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

// currentETag is the tag of url's answer now.
func currentETag(url string) (string, error) {
	// Not http.Get: it asks for gzip, whose answer has a tag of its own,
	// which wrk's plain requests would never match.
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		return "", err
	}
	io.Copy(io.Discard, res.Body) //nolint:errcheck
	res.Body.Close()
	return res.Header.Get("ETag"), nil
}

// sample asks url once with header, as wrk will, and returns the answer
// with its body as sent (not decompressed: the ceiling serves the same bytes).
func sample(ctx context.Context, url string, header map[string]string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return res, body, err
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
	if _, ok := header["If-None-Match"]; ok {
		script, err := followETag()
		if err != nil {
			return 0, 0, err
		}
		defer os.Remove(script)
		args = append(args, "-s", script)
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

// followETagScript keeps each wrk thread's If-None-Match at the last ETag
// it was given, as a polling client does: an answer's tag changes with
// every snapshot (its meta is as of the snapshot), so a cycle costs each
// connection one full answer and the rest are 304s.
const followETagScript = `
response = function(status, headers, body)
  local tag = headers["Etag"] or headers["ETag"]
  if status == 200 and tag then wrk.headers["If-None-Match"] = tag end
end
request = function() return wrk.format() end
`

func followETag() (string, error) {
	f, err := os.CreateTemp("", "availmon-bench-*.lua")
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := f.WriteString(followETagScript); err != nil {
		return "", err
	}
	return f.Name(), f.Close()
}
