package availmon

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMaintenanceAPI(t *testing.T) {
	tm := newAuthMonitor(t, false)
	post := func(body string) (int, map[string]any) {
		t.Helper()
		rec := serve(tm.h, signedReq(t, "POST", "/api/maintenance", body, authSecret, t0))
		return rec.Code, decode(t, rec.Body.Bytes())
	}
	code, body := post(`{"app":"search","from":"2026-11-22T12:00:00Z","to":"2026-11-22T13:00:00Z","comment":"reindex"}`)
	if code != http.StatusCreated {
		t.Fatalf("POST: %d %v", code, body)
	}
	want := map[string]any{"id": "api-1", "source": "api", "app": "search", "from": "2026-11-22T12:00:00.000Z",
		"to": "2026-11-22T13:00:00.000Z", "comment": "reindex", "active": true,
		"next_start": "2026-11-22T12:00:00.000Z", "next_end": "2026-11-22T13:00:00.000Z"}
	if d := cmp.Diff(want, body["data"]); d != "" {
		t.Errorf("POST answer (-want +got):\n%s", d)
	}
	code, body = post(`{"labels":{"nope":"x"},"cron":"0 3 * * SUN","duration":"2h","time_zone":"Europe/Berlin"}`)
	if code != http.StatusBadRequest || !strings.Contains(strings.Join(toStrings(body["error"].(map[string]any)["details"]), " "), `no app has a label "nope"`) {
		t.Errorf("unknown label: %d %v", code, body)
	}
	code, body = post(`{"location":"Frankfurt","cron":"0 3 * * SUN","duration":"2h","time_zone":"Europe/Berlin"}`)
	if code != http.StatusCreated {
		t.Fatalf("POST recurring: %d %v", code, body)
	}
	d := body["data"].(map[string]any)
	// 2026-11-22 is a Sunday; 03:00 CET is 02:00 UTC, so the next is the 29th.
	if d["id"] != "api-2" || d["active"] != false || d["next_start"] != "2026-11-29T02:00:00.000Z" || d["next_end"] != "2026-11-29T04:00:00.000Z" || d["duration"] != "2h" {
		t.Errorf("recurring window: %v", d)
	}

	// The window on search applies from the next cycle.
	tm.scrape(t)
	_, app := get(t, tm.h, "/api/apps/search")
	if app["data"].(map[string]any)["maintenance"] != true {
		t.Errorf("search after POST: %v", app["data"])
	}
	_, list := get(t, tm.h, "/api/maintenance")
	if n := list["meta"].(map[string]any)["count"]; n != 2.0 {
		t.Errorf("GET /api/maintenance: count %v", n)
	}
	code, one := get(t, tm.h, "/api/maintenance/api-2")
	if code != http.StatusOK || one["data"].(map[string]any)["location"] != "Frankfurt" {
		t.Errorf("GET /api/maintenance/api-2: %d %v", code, one)
	}

	// Deleting needs a signature too.
	if rec := do(t, tm.h, http.MethodDelete, "/api/maintenance/api-1", "", nil); rec.Code != http.StatusForbidden {
		t.Errorf("unsigned DELETE: %d", rec.Code)
	}
	if rec := serve(tm.h, signedReq(t, "DELETE", "/api/maintenance/api-1", "", authSecret, t0)); rec.Code != http.StatusOK {
		t.Errorf("DELETE: %d %s", rec.Code, rec.Body)
	}
	if rec := serve(tm.h, signedReq(t, "DELETE", "/api/maintenance/api-1", "", authSecret, t0.Add(time.Second))); rec.Code != http.StatusNotFound {
		t.Errorf("DELETE again: %d %s", rec.Code, rec.Body)
	}
	tm.scrape(t)
	_, app = get(t, tm.h, "/api/apps/search")
	if _, has := app["data"].(map[string]any)["maintenance"]; has {
		t.Errorf("search after DELETE: %v", app["data"])
	}
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

func TestMaintenanceAPIConfigWindows(t *testing.T) {
	tm := newTestMonitor(t, openWrites, func(o *Options) {
		o.Maintenance = []MaintenanceWindow{{App: "search", Cron: "@daily", Duration: time.Hour}}
	})
	rec := do(t, tm.h, http.MethodDelete, "/api/maintenance/config-1", "", nil)
	if rec.Code != http.StatusConflict {
		t.Errorf("DELETE of a config window: %d %s", rec.Code, rec.Body)
	}
	_, body := get(t, tm.h, "/api/maintenance/config-1")
	if d := body["data"].(map[string]any); d["source"] != "config" || d["time_zone"] != "UTC" || d["active"] != false || d["next_start"] != "2026-11-23T00:00:00.000Z" {
		t.Errorf("config window: %v", d)
	}
}

func TestMaintenanceAPIBadInput(t *testing.T) {
	tm := newTestMonitor(t, openWrites)
	for _, body := range []string{
		``,
		`null`,
		`[]`,
		`{}`,
		`{"app":"search"}`,
		`{"app":"search","from":"yesterday","to":"2026-11-22T13:00:00Z"}`,
		`{"app":"search","from":"2026-11-22T14:00:00Z","to":"2026-11-22T13:00:00Z"}`,
		`{"app":"search","cron":"0 3 * * SUN","duration":"forever"}`,
		`{"app":"search","cron":"every sunday","duration":"1h"}`,
		`{"app":"search","cron":"0 3 * * SUN","duration":"1h","time_zone":"Atlantis"}`,
		`{"app":"nope","cron":"@daily","duration":"1h"}`,
		`{"app":"search","cron":"@daily","duration":"1h","colour":"red"}`,
		`{"app":"search","app":"checkout","cron":"@daily","duration":"1h"}`,
		`{"labels":{"a":"b","a":"c"},"cron":"@daily","duration":"1h"}`,
		`{"app":1,"cron":"@daily","duration":"1h"}`,
		`{"app":"search","cron":"@daily","duration":"1h"} {}`,
		`{"app":"search","cron":"@daily","duration":"1h"`,
		`{"labels":[[[[[[[[[[]]]]]]]]]]}`,
		`{"app":"search","duration":"0s"}`,
		`{"app":"search","duration":"-1h"}`,
		`{"app":"search","duration":"800h"}`,
		`{"app":"search","from":"2026-11-22T12:00:00Z","duration":"1h"}`,
		`{"app":"search","to":"2026-11-22T13:00:00Z","duration":"1h"}`,
		`{"app":"search","duration":"1h","time_zone":"UTC"}`,
	} {
		rec := do(t, tm.h, http.MethodPost, "/api/maintenance", body, nil)
		got := decode(t, rec.Body.Bytes())
		if rec.Code != http.StatusBadRequest || got["error"].(map[string]any)["code"] != "VALIDATION_ERROR" {
			t.Errorf("POST %s: %d %v", body, rec.Code, got)
		}
	}
	// A window with from and duration says which forms there are, the one
	// of a duration alone included.
	rec := do(t, tm.h, http.MethodPost, "/api/maintenance", `{"app":"search","from":"2026-11-22T12:00:00Z","duration":"1h"}`, nil)
	if !strings.Contains(rec.Body.String(), "duration alone (one-off, starting now)") {
		t.Errorf("POST from and duration: %s; want the error to name the forms, duration alone too", rec.Body)
	}
	big := `{"app":"search","comment":"` + strings.Repeat("x", MaxBodyBytes) + `"}`
	if rec := do(t, tm.h, http.MethodPost, "/api/maintenance", big, nil); rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: %d", rec.Code)
	}
	for _, path := range []string{"/api/maintenance/nope", "/api/maintenance?x=1"} {
		if rec := do(t, tm.h, http.MethodGet, path, "", nil); rec.Code/100 != 4 {
			t.Errorf("GET %s: %d", path, rec.Code)
		}
	}
	if _, body := get(t, tm.h, "/api/maintenance"); body["meta"].(map[string]any)["count"] != 0.0 {
		t.Errorf("bad requests added windows: %v", body)
	}
}

func TestMaintenanceAPILimit(t *testing.T) {
	tm := newTestMonitor(t, openWrites)
	body := `{"app":"search","cron":"@daily","duration":"1h"}`
	for i := range maxAPIWindows {
		if rec := do(t, tm.h, http.MethodPost, "/api/maintenance", body, nil); rec.Code != http.StatusCreated {
			t.Fatalf("window %d: %d %s", i+1, rec.Code, rec.Body)
		}
	}
	if rec := do(t, tm.h, http.MethodPost, "/api/maintenance", body, nil); rec.Code != http.StatusBadRequest {
		t.Errorf("window %d: %d, want 400", maxAPIWindows+1, rec.Code)
	}
}

// Any body is a new window (201) or a 400/413, and never changes anything
// when refused.
func FuzzMaintenanceBody(f *testing.F) {
	for _, s := range []string{
		`{"app":"search","from":"2026-11-22T12:00:00Z","to":"2026-11-22T13:00:00Z"}`,
		`{"location":"Frankfurt","cron":"0 3 * * SUN","duration":"2h","time_zone":"Europe/Berlin"}`,
		`{"labels":{"a":"b"},"cron":"@every 1h","duration":"1h"}`,
		`{"location":"Frankfurt","duration":"1h"}`, `{"app":"search","duration":"-1h"}`,
		`{"app":"search","app":"x"}`, `{`, `[]`, `"x"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		w, err := parseMaintenanceBody([]byte(body))
		if err != nil {
			return
		}
		mt, _ := newMaintenance(nil, t0)
		tm := newTestMonitor(t)
		mw, err := mt.add(w, tm.plan, t0)
		if err != nil {
			if len(mt.list()) != 0 {
				t.Fatal("a refused window was added")
			}
			return
		}
		if mw.startsNow() {
			t.Fatalf("window %+v was added without resolving its start", mw.MaintenanceWindow)
		}
		// A window that was accepted answers active and next without
		// panicking, for any time.
		for _, at := range []time.Time{t0, t0.Add(-100 * 365 * 24 * time.Hour), t0.Add(100 * 365 * 24 * time.Hour)} {
			mw.active(at)
			mw.next(at)
		}
	})
}
