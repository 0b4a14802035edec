package web_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/availmon/availmon/web"
)

// api stands in for the monitor's handler: it names the path it got.
var api = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTeapot)
	io.WriteString(w, `{"api":"`+r.Method+" "+r.URL.Path+`"}`)
})

func do(t *testing.T, h http.Handler, method, target string, hdr http.Header) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestHandler(t *testing.T) {
	h := web.Handler(api)
	tests := []struct {
		name, method, target string
		status               int
		ctype, contains      string
	}{
		{"page", "GET", "/", 200, "text/html; charset=utf-8", `<script type="module" src="assets/app.js">`},
		{"page HEAD", "HEAD", "/", 200, "text/html; charset=utf-8", ""},
		{"script", "GET", "/assets/app.js", 200, "text/javascript; charset=utf-8", "WebSocket"},
		{"styles", "GET", "/assets/style.css", 200, "text/css; charset=utf-8", "prefers-color-scheme"},
		{"icon", "GET", "/assets/icon.svg", 200, "image/svg+xml", "<svg"},
		{"API", "GET", "/api/apps", 418, "application/json", `"GET /api/apps"`},
		{"unknown asset goes to the API", "GET", "/assets/nope.js", 418, "application/json", `"GET /assets/nope.js"`},
		{"index.html is not a second name of the page", "GET", "/index.html", 418, "application/json", `"GET /index.html"`},
		{"POST / goes to the API", "POST", "/", 418, "application/json", `"POST /"`},
		{"dot segments", "GET", "/assets/../assets/app.js", 418, "application/json", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(t, h, tt.method, tt.target, nil)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d; body %.200s", w.Code, tt.status, w.Body)
			}
			if got := w.Header().Get("Content-Type"); got != tt.ctype {
				t.Errorf("Content-Type %q, want %q", got, tt.ctype)
			}
			if !strings.Contains(w.Body.String(), tt.contains) {
				t.Errorf("body lacks %q: %.300s", tt.contains, w.Body)
			}
			if tt.status == 200 {
				for _, k := range []string{"ETag", "Content-Security-Policy", "X-Content-Type-Options"} {
					if w.Header().Get(k) == "" {
						t.Errorf("no %s header", k)
					}
				}
			}
		})
	}
}

// A browser that has the page asks again and gets 304.
func TestHandlerRevalidates(t *testing.T) {
	h := web.Handler(api)
	first := do(t, h, "GET", "/assets/app.js", nil)
	etag := first.Header().Get("ETag")
	if etag == "" || first.Header().Get("Cache-Control") != "no-cache" {
		t.Fatalf("ETag %q, Cache-Control %q", etag, first.Header().Get("Cache-Control"))
	}
	again := do(t, h, "GET", "/assets/app.js", http.Header{"If-None-Match": {etag}})
	if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Errorf("revalidation: status %d, %d bytes; want 304, none", again.Code, again.Body.Len())
	}
}

// Under a prefix the page is where the prefix ends in a slash; the prefix
// alone redirects there, so that the page's relative URLs resolve under it.
func TestHandlerUnderPrefix(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/status/", http.StripPrefix("/status", web.Handler(api)))
	mux.Handle("/status", http.StripPrefix("/status", web.Handler(api)))
	tests := []struct {
		target   string
		status   int
		location string
		contains string
	}{
		{"/status", http.StatusFound, "/status/", ""},
		{"/status?x=1", http.StatusFound, "/status/?x=1", ""},
		{"/status/", 200, "", "<!doctype html>"},
		{"/status/assets/app.js", 200, "", "WebSocket"},
		{"/status/api/locations", 418, "", `"GET /api/locations"`},
	}
	for _, tt := range tests {
		w := do(t, mux, "GET", tt.target, nil)
		if w.Code != tt.status || w.Header().Get("Location") != tt.location || !strings.Contains(w.Body.String(), tt.contains) {
			t.Errorf("GET %s: %d Location %q body %.100q; want %d %q containing %q",
				tt.target, w.Code, w.Header().Get("Location"), w.Body, tt.status, tt.location, tt.contains)
		}
	}
}

// Without an API every other request is 404.
func TestHandlerNilAPI(t *testing.T) {
	h := web.Handler(nil)
	if w := do(t, h, "GET", "/api/apps", nil); w.Code != http.StatusNotFound {
		t.Errorf("status %d, want 404", w.Code)
	}
	if w := do(t, h, "GET", "/", nil); w.Code != http.StatusOK {
		t.Errorf("page: status %d, want 200", w.Code)
	}
}

// The page never answers for another path than its own, whatever the
// request; nothing panics.
func FuzzHandler(f *testing.F) {
	for _, s := range []string{"/", "/assets/app.js", "", "//", "/assets/", "/%2e%2e/", "/assets/app.js?x"} {
		f.Add("GET", s)
	}
	f.Add("DELETE", "/")
	h := web.Handler(api)
	own := map[string]bool{"/": true, "/assets/app.js": true, "/assets/style.css": true, "/assets/icon.svg": true}
	f.Fuzz(func(t *testing.T, method, path string) {
		r, err := http.NewRequest(method, "http://h/", nil)
		if err != nil {
			return
		}
		r.URL.Path, r.RequestURI = path, path
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		switch {
		case w.Code == http.StatusFound:
			if path != "" || !strings.HasPrefix(w.Header().Get("Location"), "/") {
				t.Errorf("%s %q: redirect to %q", method, path, w.Header().Get("Location"))
			}
		case w.Code != http.StatusTeapot && w.Code != http.StatusOK:
			t.Errorf("%s %q: status %d", method, path, w.Code)
		case w.Code == http.StatusOK && !own[path]:
			t.Errorf("%s %q: the page answered for a path not its own", method, path)
		}
	})
}
