package promsource_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/promsource"
)

// A monitor of apps kept in one Prometheus, with its history filled from
// the server's at start.
func Example() {
	const url = "http://127.0.0.1:9090"
	src, err := promsource.New(promsource.Options{Name: "main", URL: url})
	if err != nil {
		log.Fatal(err)
	}
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818}},
		Apps: []availmon.App{
			{Name: "checkout", Location: "Tel Aviv", Metric: `up{job="checkout"}`},
			{Name: "search", Location: "Tel Aviv", Metric: `up{job="search"}`},
		},
		Backends: []availmon.Backend{{Name: "main", URL: url, Source: src, BatchSize: promsource.BatchSize}},
		Backfill: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	go m.Run(context.Background())
	http.Handle("/", m.Handler())
}

// New refuses, naming the app, an expression Prometheus's parser refuses.
func ExampleSource_ValidateApp() {
	src, err := promsource.New(promsource.Options{Name: "main", URL: "http://127.0.0.1:9090"})
	if err != nil {
		log.Fatal(err)
	}
	_, err = availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv"}},
		Apps:      []availmon.App{{Name: "checkout", Location: "Tel Aviv", Metric: `up{job="checkout"`}},
		Source:    src,
	})
	fmt.Println(err)
	// Output: availmon: invalid options: app "checkout": metric: 1:18: parse error: unexpected end of input inside braces
}
