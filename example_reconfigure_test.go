package availmon_test

import (
	"context"
	"fmt"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
)

// Changing the set of apps of a running monitor: search is removed,
// payments added; checkout keeps its state and history.
func ExampleMonitor_Reconfigure() {
	up := availmon.SourceFunc(func(context.Context, availmon.App) availmon.Result {
		return availmon.Result{Status: availmon.StatusUp}
	})
	locations := []availmon.Location{{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818}}
	m, err := availmon.New(availmon.Options{
		Locations: locations,
		Apps:      []availmon.App{{Name: "checkout", Location: "Tel Aviv"}, {Name: "search", Location: "Tel Aviv"}},
		Source:    up,
		Clock:     availmontest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)),
	})
	if err != nil {
		panic(err)
	}
	if err := m.Scrape(context.Background()); err != nil {
		panic(err)
	}
	change, err := m.Reconfigure(availmon.Options{
		Locations: locations,
		Apps:      []availmon.App{{Name: "checkout", Location: "Tel Aviv"}, {Name: "payments", Location: "Tel Aviv"}},
		Source:    up,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("added:", change.AppsAdded, "removed:", change.AppsRemoved, "apps:", change.Apps)
	// Output: added: [payments] removed: [search] apps: 2
}
