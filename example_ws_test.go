package availmon_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
	"github.com/coder/websocket"
)

// Watch status changes on /api/ws: the stream starts with the current state
// of every app checked so far, ends that snapshot with a snapshot_complete
// system_event, then carries each change as the cycle that saw it commits.
func ExampleMonitor_Handler_websocket() {
	var healthy atomic.Bool
	healthy.Store(true)
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv", Latitude: 32.0853, Longitude: 34.7818}},
		Apps:      []availmon.App{{Name: "checkout", Location: "Tel Aviv"}},
		Source: availmon.SourceFunc(func(ctx context.Context, app availmon.App) availmon.Result {
			if healthy.Load() {
				return availmon.Result{Status: availmon.StatusUp}
			}
			return availmon.Result{Status: availmon.StatusDown}
		}),
		Clock: availmontest.NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)),
	})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	m.Scrape(ctx) // one cycle; Run would check every interval
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()

	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/api/ws?apps=checkout", nil)
	if err != nil {
		panic(err)
	}
	defer c.CloseNow()
	_, msg, _ := c.Read(ctx) // the current state
	fmt.Println(string(msg))
	_, msg, _ = c.Read(ctx) // the end of the snapshot: live events follow
	fmt.Println(string(msg))

	healthy.Store(false)
	m.Scrape(ctx)
	_, msg, _ = c.Read(ctx) // the change
	fmt.Println(string(msg))
	// Output:
	// {"type":"status_update","timestamp":"2026-11-22T12:00:00.000Z","data":{"app":"checkout","status":"up","location":"Tel Aviv","previous_status":null}}
	// {"type":"system_event","timestamp":"2026-11-22T12:00:00.000Z","data":{"event":"snapshot_complete","apps":1,"unchecked":0}}
	// {"type":"status_update","timestamp":"2026-11-22T12:00:00.000Z","data":{"app":"checkout","status":"down","location":"Tel Aviv","previous_status":"up"}}
}
