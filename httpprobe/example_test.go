package httpprobe_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/httpprobe"
)

// Two apps probed over HTTP: one answers as expected, one does not.
func Example() {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
		}
	}))
	defer target.Close()

	src, err := httpprobe.New(httpprobe.Options{})
	if err != nil {
		panic(err)
	}
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv"}},
		Apps: []availmon.App{
			{Name: "home", Location: "Tel Aviv", Settings: &httpprobe.Probe{URL: target.URL + "/healthz"}},
			{Name: "shop", Location: "Tel Aviv", Settings: &httpprobe.Probe{URL: target.URL + "/shop", Method: "HEAD"}},
		},
		Backends: []availmon.Backend{{Name: "http", Source: src, BatchSize: 1}},
	})
	if err != nil {
		panic(err)
	}
	if err := m.Scrape(context.Background()); err != nil {
		panic(err)
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/apps", nil))
	var apps struct {
		Data []struct{ Name, Status, Metric string } `json:"data"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &apps); err != nil {
		panic(err)
	}
	for _, a := range apps.Data {
		fmt.Println(a.Name, a.Status, strings.Replace(a.Metric, target.URL, "URL", 1))
	}
	// Output:
	// home up GET URL/healthz
	// shop down HEAD URL/shop
}

// New refuses an app whose probe is not valid, naming the app.
func ExampleSource_ValidateApp() {
	src, err := httpprobe.New(httpprobe.Options{})
	if err != nil {
		panic(err)
	}
	_, err = availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv"}},
		Apps:      []availmon.App{{Name: "home", Location: "Tel Aviv", Settings: &httpprobe.Probe{URL: "ftp://example.com/"}}},
		Source:    src,
	})
	fmt.Println(err)
	// Output: availmon: invalid options: app "home": http: url "ftp://example.com/": scheme must be http or https
}
