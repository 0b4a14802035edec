package availmon

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"
)

// The handler may be mounted under a prefix (http.StripPrefix, chi's
// Mount). What a client reads about its request (a 404's details, the
// signed path) is the path it sent; what the metrics count is the route of
// this handler, without the mount's prefix.

// clientPath is the decoded path the client asked for: the path of the
// request URI, not r.URL.Path, which a router may have shortened.
func clientPath(r *http.Request) string {
	uri := r.RequestURI
	switch {
	case uri == "":
		return r.URL.Path // a request made in-process, not received
	case uri[0] == '/' && strings.IndexAny(uri, "%?") < 0:
		return uri
	}
	if u, err := url.ParseRequestURI(uri); err == nil {
		return u.Path
	}
	return r.URL.Path
}

// routeMark remembers how many route patterns the routers in front of
// this handler had matched when it was entered.
func routeMark(r *http.Request) int {
	if rctx := chi.RouteContext(r.Context()); rctx != nil {
		return len(rctx.RoutePatterns)
	}
	return 0
}

// routeLabel is the pattern this handler's router matched for r, without
// what the routers in front of it (mark patterns) matched: "/api/apps/{name}"
// whether the handler is mounted or not. A request that matched no route
// is routeUnmatched.
func routeLabel(r *http.Request, mark int) string {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil || len(rctx.RoutePatterns) <= mark {
		return routeUnmatched
	}
	p := strings.Join(rctx.RoutePatterns[mark:], "")
	for strings.Contains(p, "/*/") {
		p = strings.ReplaceAll(p, "/*/", "/")
	}
	if p != "/" {
		p = strings.TrimSuffix(strings.TrimSuffix(p, "//"), "/")
	}
	if p == "" || p == "/*" {
		return routeUnmatched
	}
	return p
}
