package availmon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
)

// A Monitor whose availability comes from a plain function, mounted under a
// prefix of another mux and queried over HTTP.
func Example() {
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{
			{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818},
			{Name: "Frankfurt", Latitude: 50.1109, Longitude: 8.6821},
		},
		Apps: []availmon.App{
			{Name: "checkout", Location: "Tel Aviv"},
			{Name: "search", Location: "Frankfurt"},
		},
		Source: availmon.SourceFunc(func(ctx context.Context, app availmon.App) availmon.Result {
			if app.Name == "search" {
				return availmon.Result{Status: availmon.StatusDown, ResponseTime: 80 * time.Millisecond}
			}
			return availmon.Result{Status: availmon.StatusUp, ResponseTime: 20 * time.Millisecond}
		}),
		Clock: availmontest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)), // a fake clock makes the output repeatable
	})
	if err != nil {
		panic(err)
	}
	// Run would check every interval; one cycle on demand is enough here.
	if err := m.Scrape(context.Background()); err != nil {
		panic(err)
	}

	mux := http.NewServeMux()
	mux.Handle("/availability/", http.StripPrefix("/availability", m.Handler()))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	res, err := http.Get(srv.URL + "/availability/api/status")
	if err != nil {
		panic(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var status struct {
		Data struct {
			SystemStatus        string  `json:"system_status"`
			OverallAvailability float64 `json:"overall_availability"`
			ApplicationsUp      int     `json:"applications_up"`
			ApplicationsDown    int     `json:"applications_down"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &status); err != nil {
		panic(err)
	}
	fmt.Println(res.StatusCode, status.Data.OverallAvailability, status.Data.ApplicationsUp, status.Data.ApplicationsDown)
	// Output: 200 50 1 1
}

// Checking in the background: Run checks at once and then every interval
// until its context ends, and returns only when nothing it started is left.
func ExampleMonitor_Run() {
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818}},
		Apps:      []availmon.App{{Name: "checkout", Location: "Tel Aviv"}},
		Source: availmon.SourceFunc(func(ctx context.Context, app availmon.App) availmon.Result {
			return availmon.Result{Status: availmon.StatusUp}
		}),
		Interval: 10 * time.Second,
	})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()

	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	// Wait for the first cycle: the app's status is known once it has run.
	for {
		res, err := http.Get(srv.URL + "/api/apps/checkout")
		if err != nil {
			panic(err)
		}
		var app struct {
			Data struct {
				Status string `json:"status"`
			} `json:"data"`
		}
		json.NewDecoder(res.Body).Decode(&app)
		res.Body.Close()
		if app.Data.Status == "up" {
			fmt.Println("checkout is", app.Data.Status)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	fmt.Println("Run returned", <-done)
	// Output:
	// checkout is up
	// Run returned <nil>
}
