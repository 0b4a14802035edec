package availmon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
)

// Labels, a filtered /api/apps, a service rollup with a quorum, and a
// maintenance window that keeps a planned outage out of the figures.
func Example_operatorsControls() {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	checkout := map[string]string{"service": "checkout", "team": "payments"}
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv"}, {Name: "Frankfurt"}, {Name: "Virginia"}},
		Apps: []availmon.App{
			{Name: "checkout-tlv", Location: "Tel Aviv", Labels: checkout},
			{Name: "checkout-fra", Location: "Frankfurt", Labels: checkout},
			{Name: "checkout-iad", Location: "Virginia", Labels: checkout},
		},
		Source: availmon.SourceFunc(func(ctx context.Context, app availmon.App) availmon.Result {
			if app.Name == "checkout-tlv" {
				return availmon.Result{Status: availmon.StatusUp}
			}
			return availmon.Result{Status: availmon.StatusDown}
		}),
		Services: []availmon.Service{{Name: "checkout", MinUp: 2}},
		// Frankfurt is being upgraded: down, but planned.
		Maintenance: []availmon.MaintenanceWindow{{Location: "Frankfurt", From: now.Add(-time.Hour), To: now.Add(time.Hour)}},
		Clock:       availmontest.NewClock(now),
	})
	if err != nil {
		panic(err)
	}
	if err := m.Scrape(context.Background()); err != nil {
		panic(err)
	}
	get := func(path string, v any) {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
			panic(err)
		}
	}
	var apps struct {
		Data []struct {
			Name        string
			Maintenance bool
		}
		Meta struct{ Count int }
	}
	get("/api/apps?status=down&label.team=payments", &apps)
	fmt.Println("down:", apps.Meta.Count)
	for _, a := range apps.Data {
		fmt.Println(" ", a.Name, "maintenance:", a.Maintenance)
	}
	var svc struct {
		Data struct {
			Status      string
			LocationsUp int `json:"locations_up"`
		}
	}
	get("/api/services/checkout", &svc)
	fmt.Println("checkout:", svc.Data.Status, svc.Data.LocationsUp, "of 3 locations up")
	var status struct {
		Data struct {
			Down        int      `json:"applications_down"`
			Maintenance int      `json:"applications_maintenance"`
			Overall     *float64 `json:"overall_availability"`
		}
	}
	get("/api/status", &status)
	fmt.Println("counted down:", status.Data.Down, "in maintenance:", status.Data.Maintenance, "availability:", *status.Data.Overall)
	// Output:
	// down: 2
	//   checkout-fra maintenance: true
	//   checkout-iad maintenance: false
	// checkout: degraded 2 of 3 locations up
	// counted down: 1 in maintenance: 1 availability: 50
}
