package availmon

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
)

// /api/locations' data is made once per plan, not once per cycle: a
// cycle keeps the same bytes (only meta's timestamp, hence the ETag,
// moves), and a new configuration makes them again.
func TestLocationsDataKeptAcrossCycles(t *testing.T) {
	tm := newTestMonitor(t)
	scrape := func() {
		t.Helper()
		tm.clock.Advance(time.Minute)
		if err := tm.Scrape(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	scrape()
	first := tm.snap.Load().locationsData()
	_, before := get(t, tm.h, "/api/locations")
	scrape()
	if got := tm.snap.Load().locationsData(); got != first {
		t.Error("a cycle made /api/locations' data again")
	}
	_, after := get(t, tm.h, "/api/locations")
	if !reflect.DeepEqual(before["data"], after["data"]) {
		t.Errorf("data changed across a cycle: %v, then %v", before["data"], after["data"])
	}

	if _, err := tm.Reconfigure(reconfigured(tm)); err != nil {
		t.Fatal(err)
	}
	scrape()
	if got := tm.snap.Load().locationsData(); got == first || !strings.Contains(string(got.Head()), `"payments"`) {
		t.Errorf("after a reconfiguration /api/locations' data is %s", got.Head())
	}
}
