package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/config"
	"github.com/availmon/availmon/filestore"
)

// The state writePast leaves is restored by a monitor of the same apps: its
// figures over the past are the synthetic ones, an app with one outage of
// outageLen a day down that long each day.
func TestPastRestored(t *testing.T) {
	const apps, locs, days = 20, 4, 3
	dir := t.TempDir()
	now := time.Now()
	if _, err := writePast(dir, past{days: days, outages: 0.1}, apps, locs, now); err != nil {
		t.Fatal(err)
	}
	st, err := filestore.New(filestore.Options{Dir: dir + "/" + config.DefaultStoragePath})
	if err != nil {
		t.Fatal(err)
	}
	o := availmon.Options{Store: st, Interval: time.Hour,
		Source: availmon.SourceFunc(func(context.Context, availmon.App) availmon.Result {
			return availmon.Result{Status: availmon.StatusUp}
		})}
	for l := range locs {
		o.Locations = append(o.Locations, availmon.Location{Name: fmt.Sprintf("location-%03d", l)})
	}
	for i := range apps {
		o.Apps = append(o.Apps, availmon.App{Name: appName(i), Location: o.Locations[i%locs].Name, Metric: "up"})
	}
	m, err := availmon.New(o)
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	m.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, fmt.Sprintf("/api/availability?window=%dd&by=app", days), nil))
	var v struct {
		Data struct {
			Items []struct {
				Name           string  `json:"name"`
				DownSeconds    float64 `json:"down_seconds"`
				UnknownSeconds float64 `json:"unknown_seconds"`
				Outages        int     `json:"outages"`
			} `json:"items"`
		} `json:"data"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil || len(v.Data.Items) != apps {
		t.Fatalf("%v: %s", err, w.Body.String())
	}
	for _, a := range v.Data.Items {
		if a.UnknownSeconds != 0 {
			t.Errorf("%s: %v s unknown, want none", a.Name, a.UnknownSeconds)
		}
		want := 0
		if a.Name == appName(0) || a.Name == appName(10) {
			want = days
		}
		// The window ends now and reaches back days: the first day's
		// outage may fall before it.
		if a.Outages < want-1 || a.Outages > want || a.DownSeconds != float64(a.Outages)*outageLen.Seconds() {
			t.Errorf("%s: %d outages, %v s down, want %d of %v", a.Name, a.Outages, a.DownSeconds, want, outageLen)
		}
	}
}
