package availmon

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/availmon/availmon/internal/promtest"
)

// A panicking Source: the API shows the panic value only, the stack trace
// goes to the log (it names the code, which is for the operator, not for
// whoever reads the public JSON).
func TestSourcePanicStackGoesToLog(t *testing.T) {
	var logs promtest.SyncBuffer
	tm := newTestMonitor(t, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	tm.src.check = func(ctx context.Context, apps []App) ([]Result, error) { panic("boom") }
	tm.scrape(t)
	_, app := get(t, tm.h, "/api/apps/checkout")
	if got := app["data"].(obj)["error"]; got != "source panicked: boom" {
		t.Errorf("error %q, want %q", got, "source panicked: boom")
	}
	if !strings.Contains(logs.String(), "goroutine ") || !strings.Contains(logs.String(), "TestSourcePanicStackGoesToLog") {
		t.Errorf("the log lacks the panic's stack trace:\n%s", logs.String())
	}
}
