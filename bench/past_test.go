package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/config"
	"github.com/availmon/availmon/filestore"
	"github.com/availmon/availmon/internal/fakeclock"
	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/timeline"
	"github.com/google/go-cmp/cmp"
)

// The state writePast leaves is restored by a monitor of the same apps: its
// figures over the past are the synthetic ones, an app with one outage of
// outageLen a day down that long each day. The monitor's clock reads 06:00,
// before the day's outage (at noon), so that the window, which ends now and
// reaches back days, holds every outage whole: at the real time it would
// cut one in two between 12:00 and 12:10.
func TestPastRestored(t *testing.T) {
	const apps, locs, days = 20, 4, 3
	now := time.Now().UTC().Truncate(24 * time.Hour).Add(6 * time.Hour)
	for _, a := range restoredApps(t, past{days: days, outages: 0.1}, apps, locs, now) {
		if a.UnknownSeconds != 0 {
			t.Errorf("%s: %v s unknown, want none", a.Name, a.UnknownSeconds)
		}
		want := 0
		if a.Name == appName(0) || a.Name == appName(10) {
			want = days
		}
		if a.Outages != want || a.DownSeconds != float64(want)*outageLen.Seconds() {
			t.Errorf("%s: %d outages, %v s down, want %d of %v", a.Name, a.Outages, a.DownSeconds, want, outageLen)
		}
	}
}

// restoredAvailability is an app's figures over the synthetic past as a
// monitor that restored it answers them.
type restoredAvailability struct {
	Name           string  `json:"name"`
	DownSeconds    float64 `json:"down_seconds"`
	UnknownSeconds float64 `json:"unknown_seconds"`
	Outages        int     `json:"outages"`
}

// restoredApps writes p up to now for apps in locs locations, starts a
// monitor of them on the state, its clock reading now, and returns its
// figures by app over p's days.
func restoredApps(t *testing.T, p past, apps, locs int, now time.Time) []restoredAvailability {
	t.Helper()
	dir := t.TempDir()
	if _, err := writePast(dir, p, apps, locs, now); err != nil {
		t.Fatal(err)
	}
	st, err := filestore.New(filestore.Options{Dir: dir + "/" + config.DefaultStoragePath})
	if err != nil {
		t.Fatal(err)
	}
	o := availmon.Options{Store: st, Interval: time.Hour, Clock: fakeclock.New(now),
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
	m.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, fmt.Sprintf("/api/availability?window=%dd&by=app", p.days), nil))
	var v struct {
		Data struct {
			Items []restoredAvailability `json:"items"`
		} `json:"data"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil || len(v.Data.Items) != apps {
		t.Fatalf("%v: %s", err, w.Body.String())
	}
	return v.Data.Items
}

// A random past restores as it was placed: every app's outages of the
// days, whole. The monitor's clock reads a second past midnight, when the
// window reaches back to the first day's first second, before any outage
// (each begins a second into its day or later): at the real time the
// window would cut the first day's outages before the time of day.
func TestPastRandomRestored(t *testing.T) {
	const apps, locs, days, per = 8, 2, 3, 4
	now := time.Now().UTC().Truncate(24 * time.Hour).Add(time.Second)
	for _, a := range restoredApps(t, past{days: days, outages: per, random: true}, apps, locs, now) {
		i := -1
		for j := range apps {
			if appName(j) == a.Name {
				i = j
			}
		}
		var all time.Duration
		for d := range days {
			for _, o := range randomDayOutages(i, d, per) {
				all += o.len
			}
		}
		down := time.Duration(a.DownSeconds) * time.Second
		if a.UnknownSeconds != 0 || a.Outages != days*per || down != all {
			t.Errorf("%s: %d outages, %v down, %v s unknown; want %d, %v, none", a.Name, a.Outages, down, a.UnknownSeconds, days*per, all)
		}
	}
}

// randomDayOutages places k outages a day inside the day, sorted and
// apart, of lengths in bounds, the same ones for the same app and day and
// others for another.
func TestRandomDayOutages(t *testing.T) {
	for _, k := range []int{0, 1, 10, 50} {
		for app := range 20 {
			for day := range 20 {
				got := randomDayOutages(app, day, k)
				if len(got) != k {
					t.Fatalf("app %d day %d: %d outages, want %d", app, day, len(got), k)
				}
				end := time.Duration(0)
				for j, o := range got {
					if o.from <= end || o.from+o.len >= 24*time.Hour {
						t.Fatalf("app %d day %d: outage %d %v+%v overlaps the one before (to %v) or leaves the day", app, day, j, o.from, o.len, end)
					}
					if o.len < randomOutageMin || o.len > randomOutageMax || o.len%time.Second != 0 {
						t.Fatalf("app %d day %d: outage %d lasts %v", app, day, j, o.len)
					}
					end = o.from + o.len
				}
				if again := randomDayOutages(app, day, k); !slices.Equal(got, again) {
					t.Fatalf("app %d day %d: %v, then %v", app, day, got, again)
				}
			}
		}
	}
	if a, b := randomDayOutages(1, 2, 10), randomDayOutages(2, 1, 10); slices.Equal(a, b) {
		t.Errorf("apps 1 and 2 on days 2 and 1 have the same outages %v", a)
	}
}

// With random, the ledger pastLedger builds holds each app's outages
// where randomDayOutages places them, whatever chunks the days are
// filled in, and a location is out (partly) while any of its apps is.
func TestPastRandomLedger(t *testing.T) {
	const apps, locs, days = 6, 2, 5
	now := time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC)
	p := past{days: days, outages: 3, random: true}
	start := now.Truncate(24*time.Hour).AddDate(0, 0, -days)
	led := pastLedger(p, apps, locs, now)
	daily := pastLedger(past{days: days, outages: 3, random: true, chunkSpans: 1}, apps, locs, now)
	if !bytes.Equal(led.AppendBinary(nil), daily.AppendBinary(nil)) {
		t.Errorf("filled a day at a time, the ledger differs from the one filled at once")
	}
	bk := led.Book(now)
	for i := range apps {
		var want []timeline.Outage
		for d := range days {
			day := start.AddDate(0, 0, d)
			for _, o := range randomDayOutages(i, d, 3) {
				want = append(want, timeline.Outage{Start: day.Add(o.from), End: day.Add(o.from + o.len), Duration: o.len, Full: true, Count: 1})
			}
		}
		got := bk.Outages(ledger.App, i, start, now)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("app %d (-want +got):\n%s", i, diff)
		}
	}
	for li := range locs {
		if got := bk.Outages(ledger.Location, li, start, now); len(got) == 0 {
			t.Errorf("location %d: no outage", li)
		}
	}
}

// The most outages -past-random accepts a day all fit in it, at their
// longest, a second apart.
func TestRandomDayOutagesAtMost(t *testing.T) {
	for app := range 50 {
		out := randomDayOutages(app, app, maxRandomOutages)
		if len(out) != maxRandomOutages {
			t.Fatalf("app %d: %d outages, want %d", app, len(out), maxRandomOutages)
		}
	}
}
