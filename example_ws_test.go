package availmon_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/availmon/availmon"
)

// Watching status changes on /api/ws: the client first gets the current
// state of every app, then each change as a cycle sees it.
func ExampleMonitor_Handler_webSocket() {
	down := false
	m, err := availmon.New(availmon.Options{
		Locations: []availmon.Location{{Name: "Tel Aviv"}, {Name: "Frankfurt"}},
		Apps: []availmon.App{
			{Name: "checkout", Location: "Tel Aviv"},
			{Name: "search", Location: "Frankfurt"},
		},
		Source: availmon.SourceFunc(func(ctx context.Context, app availmon.App) availmon.Result {
			if app.Name == "search" && down {
				return availmon.Result{Status: availmon.StatusDown}
			}
			return availmon.Result{Status: availmon.StatusUp}
		}),
		Clock: fixedClock{time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)},
	})
	if err != nil {
		panic(err)
	}
	if err := m.Scrape(context.Background()); err != nil {
		panic(err)
	}
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()

	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/api/ws", nil)
	if err != nil {
		panic(err)
	}
	defer c.CloseNow()

	type message struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Data      struct {
			App            string  `json:"app"`
			Status         string  `json:"status"`
			Location       string  `json:"location"`
			PreviousStatus *string `json:"previous_status"`
		} `json:"data"`
	}
	show := func() {
		var msg message
		if err := wsjson.Read(ctx, c, &msg); err != nil {
			panic(err)
		}
		prev := "-"
		if msg.Data.PreviousStatus != nil {
			prev = *msg.Data.PreviousStatus
		}
		fmt.Println(msg.Timestamp, msg.Type, msg.Data.App, msg.Data.Location, prev, "->", msg.Data.Status)
	}
	show() // the current state: one message per app
	show()

	// A scheduled cycle (Run) would do the same.
	down = true // read by the Source in the cycle below; no cycle runs concurrently
	if err := m.Scrape(ctx); err != nil {
		panic(err)
	}
	show()
	c.Close(websocket.StatusNormalClosure, "")
	// Output:
	// 2026-11-22T12:00:00.000Z status_update checkout Tel Aviv - -> up
	// 2026-11-22T12:00:00.000Z status_update search Frankfurt - -> up
	// 2026-11-22T12:00:00.000Z status_update search Frankfurt up -> down
}
