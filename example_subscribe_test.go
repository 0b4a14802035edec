package availmon_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
)

// Receive status changes in Go: the subscription starts with the current
// state of every app, then carries each change as the cycle that saw it
// commits, with nothing lost or repeated in between.
func ExampleMonitor_Subscribe() {
	var healthy atomic.Bool
	healthy.Store(true)
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818}},
		Apps: []availmon.App{
			{Name: "checkout", Location: "Tel Aviv"},
			{Name: "search", Location: "Tel Aviv"},
		},
		Source: availmon.SourceFunc(func(ctx context.Context, app availmon.App) availmon.Result {
			if app.Name == "checkout" && !healthy.Load() {
				return availmon.Result{Status: availmon.StatusDown}
			}
			return availmon.Result{Status: availmon.StatusUp}
		}),
		Clock: availmontest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)),
	})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m.Scrape(ctx) // one cycle; Run would check every interval

	n := 0
	for ev, err := range m.Subscribe(ctx, availmon.EventFilter{Apps: []string{"checkout"}}) {
		if err != nil {
			fmt.Println("subscription ended:", err)
			break
		}
		fmt.Printf("%s: %s is %s (was %q)\n", ev.Type, ev.App, ev.Status, ev.PreviousStatus)
		if n++; n == 1 {
			healthy.Store(false)
			m.Scrape(ctx) // the change arrives on the next turn of the loop
		} else {
			break
		}
	}
	// Output:
	// status_update: checkout is up (was "")
	// status_update: checkout is down (was "up")
}
