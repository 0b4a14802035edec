// Package web serves availmon's web page: a live world map of every
// location, with a list of locations, the apps of the selected one and the
// last 24 hours of overall availability. The page follows /api/ws, so a
// change shows within a second without reloading.
//
// The page is opt-in: wrap the monitor's API handler with Handler and serve
// the result wherever the API would be served.
//
//	http.ListenAndServe("127.0.0.1:8080", web.Handler(m.Handler()))
//
// Every URL the page uses is relative, so the pair works under a prefix too:
//
//	mux.Handle("/status/", http.StripPrefix("/status", web.Handler(m.Handler())))
//
// The page needs nothing from the internet: the world outline (Natural Earth
// via the world-atlas npm package), the scripts and the styles are built
// into the binary with go:embed. Their sources are in ui/; `npm run build`
// there rewrites dist/, which is committed so that `go install` needs no npm.
package web
