package availmon

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/availmon/availmon/hmac"
)

// Windows added through the API are saved and come back after a restart
// with their ids, after the configuration's; a deleted window's id is not
// given again.
func TestMaintenanceRestoredAcrossRestart(t *testing.T) {
	st := &memStore{}
	clock := newFakeClock(t0)
	start := func() *testMonitor {
		t.Helper()
		v, err := hmac.NewVerifier(hmac.VerifierOptions{Secrets: [][]byte{authSecret}, Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		return newStoreMonitor(t, st, clock, func(o *Options) {
			o.Authenticator = v
			o.Maintenance = []MaintenanceWindow{{App: "billing", Cron: "@daily", Duration: time.Hour, Comment: "backup"}}
		})
	}
	tm := start()
	post := func(body string, at time.Time) string {
		t.Helper()
		rec := serve(tm.h, signedReq(t, "POST", "/api/maintenance", body, authSecret, at))
		if rec.Code != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", body, rec.Code, rec.Body)
		}
		return decode(t, rec.Body.Bytes())["data"].(map[string]any)["id"].(string)
	}
	post(`{"app":"search","from":"2026-11-22T12:00:00Z","to":"2026-11-22T13:00:00Z","comment":"reindex"}`, t0)
	post(`{"location":"Frankfurt","cron":"0 3 * * SUN","duration":"2h","time_zone":"Europe/Berlin"}`, t0.Add(time.Second))
	third := post(`{"app":"checkout","from":"2026-11-22T14:00:00Z","to":"2026-11-22T15:00:00Z"}`, t0.Add(2*time.Second))
	if rec := serve(tm.h, signedReq(t, "DELETE", "/api/maintenance/"+third, "", authSecret, t0.Add(3*time.Second))); rec.Code != http.StatusOK {
		t.Fatalf("DELETE: %d", rec.Code)
	}
	_, before := get(t, tm.h, "/api/maintenance")
	if err := tm.save(context.Background()); err != nil {
		t.Fatal(err)
	}

	again := start()
	_, after := get(t, again.h, "/api/maintenance")
	if diff := cmp.Diff(before["data"], after["data"]); diff != "" {
		t.Errorf("GET /api/maintenance after the restart (-before +after):\n%s", diff)
	}
	if n := len(after["data"].([]any)); n != 3 {
		t.Errorf("%d windows after the restart, want the configuration's and two of the API", n)
	}
	again.scrape(t)
	if _, app := get(t, again.h, "/api/apps/search"); app["data"].(map[string]any)["maintenance"] != true {
		t.Errorf("search after the restart is not in its window: %v", app["data"])
	}
	tm = again
	if id := post(`{"app":"checkout","from":"2026-11-22T14:00:00Z","to":"2026-11-22T15:00:00Z"}`, t0.Add(4*time.Second)); id != "api-4" {
		t.Errorf("the next id after the restart is %s, want api-4 (api-3 was given and deleted)", id)
	}
}

// Encoding 3 keeps the windows; a window that cannot be restored (an id
// the API does not give, one given twice, a zone no longer known) is
// dropped, the others kept.
func TestMaintenanceSavedWindows(t *testing.T) {
	s := &savedState{savedAt: t0, maint: savedMaintenance{nextID: 7, windows: []MaintenanceWindow{
		{ID: "api-2", App: "search", From: t0, To: t0.Add(time.Hour), Comment: "c"},
		{ID: "api-5", Location: "Frankfurt", Labels: map[string]string{"team": "x", "tier": "1"}, Cron: "0 3 * * *", Duration: 2 * time.Hour, TimeZone: "Europe/Berlin"},
	}}}
	got, err := decodeState(encodeState(s))
	if err != nil {
		t.Fatal(err)
	}
	opts := cmp.Options{cmp.Exporter(func(reflect.Type) bool { return true }), cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }), cmpopts.EquateEmpty()}
	if diff := cmp.Diff(s, got, opts); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}

	mt, _ := newMaintenance([]MaintenanceWindow{{ID: "nightly", App: "a", Cron: "@daily", Duration: time.Hour}}, t0)
	bad := append(got.maint.windows,
		MaintenanceWindow{ID: "nightly", App: "a", From: t0, To: t0.Add(time.Hour)},
		MaintenanceWindow{ID: "api-2", App: "a", From: t0, To: t0.Add(time.Hour)},
		MaintenanceWindow{ID: "api-09", App: "a", From: t0, To: t0.Add(time.Hour)},
		MaintenanceWindow{ID: "api-8", App: "a", Cron: "@daily", Duration: time.Hour, TimeZone: "Nowhere/Atlantis"})
	kept, errs := mt.restoreSaved(savedMaintenance{nextID: 7, windows: bad})
	if kept != 2 || len(errs) != 4 {
		t.Errorf("kept %d, errors %v; want 2 kept and 4 errors", kept, errs)
	}
	if mt.nextID != 7 || len(mt.list()) != 3 {
		t.Errorf("next id %d, %d windows", mt.nextID, len(mt.list()))
	}
}

// A file of encoding 2 (written by the availmon before windows were kept,
// testdata/state-encoding-2.bin) is still read, without windows; the
// encoding after this one is refused.
func TestStateEncoding2Read(t *testing.T) {
	old, err := os.ReadFile("testdata/state-encoding-2.bin")
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeState(old)
	if err != nil {
		t.Fatalf("an encoding-2 file: %v", err)
	}
	if len(got.apps) != 2 || got.apps[0].name != "a" || len(got.apps[0].history) != 2 || len(got.replay) != 1 ||
		got.interval == nil || got.interval.d != 90*time.Second || len(got.maint.windows) != 0 {
		t.Errorf("the encoding-2 file read as %+v", got)
	}
	// The same state written now is of the current encoding and reads back the same.
	again, err := decodeState(encodeState(got))
	if err != nil || len(again.apps) != 2 || again.apps[0].history[1].err != "x" {
		t.Errorf("written again: %+v, %v", again, err)
	}
	future := append([]byte{stateEncoding + 1}, encodeState(got)[1:]...)
	if _, err := decodeState(future); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("encoding version %d", stateEncoding+1)) {
		t.Errorf("encoding %d: %v", stateEncoding+1, err)
	}
}
