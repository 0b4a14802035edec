package availmon

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon/period"
)

// With ExportWindows, /metrics has each app's availability and coverage
// over each window, as /api/availability gives them; without, neither
// family.
func TestExportWindows(t *testing.T) {
	w, err := period.ParseWindow("1h")
	if err != nil {
		t.Fatal(err)
	}
	tm := newTestMonitor(t, func(o *Options) { o.ExportWindows = []period.Window{w} })
	for k := range 121 {
		st := StatusUp
		if k >= 10 && k < 20 {
			st = StatusDown
		}
		tm.src.Set("checkout", st, 0)
		tm.src.Set("search", StatusUp, 0)
		tm.src.Set("billing", StatusUp, 0)
		tm.scrape(t)
		tm.clock.Advance(30 * time.Second)
	}
	tm.scrape(t)
	_, rows := items(t, tm, "window=1h")
	rec := do(t, tm.h, http.MethodGet, "/metrics", "", nil)
	body := rec.Body.String()
	prefix := `availmon_app_availability_ratio{app="checkout",location="Tel Aviv",window="1h"} `
	_, after, ok := strings.Cut(body, prefix)
	v, err := strconv.ParseFloat(strings.SplitN(after, "\n", 2)[0], 64)
	if want := rows["checkout"]["availability"].(float64) / 100; !ok || err != nil || math.Abs(v-want) > 1e-6 {
		t.Errorf("/metrics: checkout's 1h availability %v (%v), want %v", v, err, want)
	}
	if !strings.Contains(body, `availmon_app_coverage_ratio{app="search",location="Tel Aviv",window="1h"} 1`) {
		t.Error("/metrics lacks search's coverage")
	}
	plain := newTestMonitor(t)
	plain.scrape(t)
	if body := do(t, plain.h, http.MethodGet, "/metrics", "", nil).Body.String(); strings.Contains(body, "availmon_app_availability_ratio") {
		t.Error("/metrics without ExportWindows has availmon_app_availability_ratio")
	}
}
