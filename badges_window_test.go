package availmon

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// ?window= and ?period= show the availability /api/availability gives
// over the same range.
func TestBadgesOverWindowAndPeriod(t *testing.T) {
	tm := liveLedgerMonitor(t)
	for _, tt := range []struct{ path, query, by, name string }{
		{"/api/badges/apps/checkout.svg", "window=1h", "app", "checkout"},
		{"/api/badges/apps/checkout.svg", "period=2026-11", "app", "checkout"},
		{"/api/badges/apps/checkout.svg", "window=30d&value=uptime&v=2", "app", "checkout"},
		{"/api/badges/locations/Tel%20Aviv.svg", "period=2026-11-22", "location", "Tel Aviv"},
	} {
		param := strings.Split(strings.Split(tt.query, "&")[0], "=")
		_, rows := items(t, tm, tt.query[:strings.Index(tt.query+"&", "&")]+"&by="+tt.by)
		want := fmt.Sprintf("%.2f%% %s", rows[tt.name]["availability"], param[1])
		rec := do(t, tm.h, http.MethodGet, tt.path+"?"+tt.query, "", nil)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("GET %s?%s = %d %s, want %q", tt.path, tt.query, rec.Code, rec.Body, want)
		}
	}
	for _, q := range []string{"window=2y", "period=2026-13", "window=1h&period=2026-11", "period=2099", "window=1h&window=2h", "period="} {
		code, body := get(t, tm.h, "/api/badges/apps/checkout.svg?"+q)
		if code != http.StatusBadRequest || body["error"].(obj)["code"] != "VALIDATION_ERROR" {
			t.Errorf("?%s = %d %v", q, code, body)
		}
	}
	if code, _ := get(t, tm.h, "/api/badges/apps/nosuch.svg?window=1h"); code != http.StatusNotFound {
		t.Errorf("unknown app: %d", code)
	}
}
