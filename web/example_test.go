package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/web"
)

// Serve the page next to the API, here under /status/.
func ExampleHandler() {
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "London", Latitude: 51.5072, Longitude: -0.1276}},
		Apps:      []availmon.App{{Name: "checkout", Location: "London"}},
		Source: availmon.SourceFunc(func(context.Context, availmon.App) availmon.Result {
			return availmon.Result{Status: availmon.StatusUp}
		}),
	})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/status/", http.StripPrefix("/status", web.Handler(m.Handler())))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, path := range []string{"/status/", "/status/api/locations"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(path, resp.Status, strings.SplitN(resp.Header.Get("Content-Type"), ";", 2)[0], len(body) > 0)
	}
	// Output:
	// /status/ 200 OK text/html true
	// /status/api/locations 200 OK application/json true
}
