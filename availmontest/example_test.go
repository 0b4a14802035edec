package availmontest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
)

// A Monitor driven by a fake clock: each minute the clock advances runs one
// cycle, whose answers the scripted source gives, and /health stays
// healthy however far the clock runs ahead, since the cycles follow it.
func Example() {
	clock := availmontest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	src := availmontest.NewSource()
	src.Set("checkout",
		availmon.Result{Status: availmon.StatusUp},
		availmon.Result{Status: availmon.StatusDown},
		availmon.Result{Status: availmon.StatusUp})
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818}},
		Apps:      []availmon.App{{Name: "checkout", Location: "Tel Aviv"}},
		Source:    src,
		Clock:     clock,
		Interval:  time.Minute,
	})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()

	show := func() {
		// The monitor sets its cycle timer again once the cycle is published.
		if err := clock.BlockUntil(ctx, 1); err != nil {
			panic(err)
		}
		var health struct{ Status string }
		get(srv.URL+"/health", &health)
		var apps struct {
			Data []struct {
				Name, Status string
				LastCheck    string `json:"last_check"`
			}
		}
		get(srv.URL+"/api/apps", &apps)
		a := apps.Data[0]
		fmt.Println(health.Status, a.Name, a.Status, a.LastCheck)
	}
	show() // Run's first cycle
	clock.Advance(time.Minute)
	show()
	clock.Advance(10 * time.Hour) // one cycle, not six hundred
	show()
	fmt.Println(len(src.Calls()), "checks")

	cancel()
	if err := <-done; err != nil {
		panic(err)
	}
	// Output:
	// healthy checkout up 2026-11-22T12:00:00.000Z
	// healthy checkout down 2026-11-22T12:01:00.000Z
	// healthy checkout up 2026-11-22T22:01:00.000Z
	// 3 checks
}

// get decodes the JSON answer to a GET of url into v.
func get(url string, v any) {
	res, err := http.Get(url)
	if err != nil {
		panic(err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		panic(err)
	}
}

// A script per app: each check takes the next result, and the last one
// repeats.
func ExampleSource_Set() {
	src := availmontest.NewSource()
	src.Set("checkout", availmon.Result{Status: availmon.StatusUp}, availmon.Result{Status: availmon.StatusDown})
	apps := []availmon.App{{Name: "checkout"}, {Name: "search"}}
	for range 3 {
		rs, _ := src.Check(context.Background(), apps)
		fmt.Println(rs[0].Status, rs[1].Status)
	}
	fmt.Println(src.Calls())
	// Output:
	// up unavailable
	// down unavailable
	// down unavailable
	// [[checkout search] [checkout search] [checkout search]]
}

// Timers fire when the clock reaches them; setting the clock (Step) is
// not time passing.
func ExampleClock_Advance() {
	clock := availmontest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	t := clock.NewTimer(time.Minute)
	clock.Step(time.Hour) // an operator sets the clock an hour ahead
	clock.Advance(30 * time.Second)
	fmt.Println(clock.Now().Format(time.TimeOnly), "timers set:", clock.Timers())
	clock.Advance(30 * time.Second)
	fmt.Println((<-t.C()).Format(time.TimeOnly), "timers set:", clock.Timers())
	// Output:
	// 13:00:30 timers set: 1
	// 13:01:00 timers set: 0
}
