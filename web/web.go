package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// dist is the page as `npm run build` in ui/ writes it. It is read once by
// Handler and never written.
//
//go:embed dist
var dist embed.FS

// contentSecurityPolicy allows the page only its own files and its own
// origin's API: no inline script, nothing from another host.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// contentType names the types of the files the build writes. The mime
// package would name them too, but its first use reads the system's type
// files (/etc/mime.types: half a megabyte of maps kept for good, to name
// four files) and makes the answers depend on the machine's copy. "" for
// another extension: the bytes are sniffed then.
func contentType(ext string) string {
	switch ext {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".json", ".map":
		return "application/json"
	case ".png":
		return "image/png"
	case ".woff2":
		return "font/woff2"
	}
	return ""
}

// asset is one embedded file, ready to serve.
type asset struct {
	body  []byte
	ctype string
	etag  string
}

type handler struct {
	api    http.Handler
	assets map[string]asset // by path relative to the mount point, "/" for the page
}

// Handler returns api with the web page added: GET / serves the page and
// GET /assets/... its files; every other request goes to api unchanged. api
// is normally availmon.Monitor.Handler(); nil answers other requests with
// 404.
//
// Mounted under a prefix with http.StripPrefix, a request for the prefix
// without its trailing slash ("/status") is redirected to "/status/", so
// that the page's relative URLs resolve under the prefix.
func Handler(api http.Handler) http.Handler {
	if api == nil {
		api = http.NotFoundHandler()
	}
	h := &handler{api: api, assets: map[string]asset{}}
	err := fs.WalkDir(dist, "dist", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := dist.ReadFile(name)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(name, "dist")
		if rel == "/index.html" {
			rel = "/"
		}
		sum := sha256.Sum256(body)
		ctype := contentType(path.Ext(name))
		if ctype == "" {
			ctype = http.DetectContentType(body)
		}
		h.assets[rel] = asset{body: body, ctype: ctype, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
		return nil
	})
	if err != nil || len(h.assets) == 0 {
		// The files are compiled in: this is a broken build, not a
		// request error.
		panic("web: the embedded page is missing: " + errString(err))
	}
	return h
}

func errString(err error) string {
	if err == nil {
		return "dist/ is empty"
	}
	return err.Error()
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		h.redirectToSlash(w, r)
		return
	}
	a, ok := h.assets[r.URL.Path]
	if !ok || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		h.api.ServeHTTP(w, r)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", a.ctype)
	hd.Set("ETag", a.etag)
	// The file names carry no hash: ask every time, answer 304 when the
	// binary (and so the page) has not changed.
	hd.Set("Cache-Control", "no-cache")
	hd.Set("Content-Security-Policy", contentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}

// redirectToSlash answers a request for the mount point without its slash:
// the path the client sent (before any StripPrefix) plus "/".
func (h *handler) redirectToSlash(w http.ResponseWriter, r *http.Request) {
	sent := r.RequestURI
	if i := strings.IndexAny(sent, "?#"); i >= 0 {
		sent = sent[:i]
	}
	if !strings.HasPrefix(sent, "/") || strings.HasPrefix(sent, "//") {
		sent = "/"
	}
	target := sent
	if !strings.HasSuffix(target, "/") {
		target += "/"
	}
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, target, http.StatusFound)
}
