package availmon

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/internal/statefile"
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

// A window that cannot be restored (an id the API does not give, one given
// twice, a zone no longer known) is dropped, the others kept.
func TestMaintenanceSavedWindows(t *testing.T) {
	saved := []statefile.Window{
		{ID: "api-2", App: "search", From: t0, To: t0.Add(time.Hour), Comment: "c"},
		{ID: "api-5", Location: "Frankfurt", Labels: map[string]string{"team": "x", "tier": "1"}, Cron: "0 3 * * *", Duration: 2 * time.Hour, TimeZone: "Europe/Berlin"},
		{ID: "nightly", App: "a", From: t0, To: t0.Add(time.Hour)},
		{ID: "api-2", App: "a", From: t0, To: t0.Add(time.Hour)},
		{ID: "api-09", App: "a", From: t0, To: t0.Add(time.Hour)},
		{ID: "api-8", App: "a", Cron: "@daily", Duration: time.Hour, TimeZone: "Nowhere/Atlantis"},
	}
	mt, _ := newMaintenance([]MaintenanceWindow{{ID: "nightly", App: "a", Cron: "@daily", Duration: time.Hour}}, t0)
	kept, errs := mt.restoreSaved(statefile.Maintenance{NextID: 7, Windows: saved})
	if kept != 2 || len(errs) != 4 {
		t.Errorf("kept %d, errors %v; want 2 kept and 4 errors", kept, errs)
	}
	if mt.nextID != 7 || len(mt.list()) != 3 {
		t.Errorf("next id %d, %d windows", mt.nextID, len(mt.list()))
	}
}
