package availmon

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/availmon/availmon/internal/promtest"
)

// logMonitor is the test fixture logging at level into the returned buffer.
func logMonitor(t *testing.T, level slog.Level, opts ...func(*Options)) (*testMonitor, *promtest.SyncBuffer) {
	t.Helper()
	var logs promtest.SyncBuffer
	opts = append(opts, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: level}))
	})
	return newTestMonitor(t, opts...), &logs
}

func countLines(logs, msg string) int {
	return strings.Count(logs, "msg="+msg+" ") + strings.Count(logs, `msg="`+msg+`"`)
}

// Status changes make one info line per cycle (counts and the first few
// apps), per-app lines only at debug, and no empty attributes.
func TestStatusChangesOneLinePerCycle(t *testing.T) {
	tm, logs := logMonitor(t, slog.LevelInfo)
	flip := func(st Status) {
		for _, a := range []string{"checkout", "search", "billing"} {
			tm.src.Set(a, st, time.Millisecond)
		}
		tm.clock.Advance(time.Second)
		tm.scrape(t)
	}
	for range 3 {
		flip(StatusUp)
		flip(StatusDown)
	}
	out := logs.String()
	if n := countLines(out, "status changes"); n != 6 {
		t.Errorf("%d summary lines for 6 cycles with changes, want 6:\n%s", n, out)
	}
	if n := countLines(out, "status changed"); n != 0 {
		t.Errorf("%d per-app lines at info, want none:\n%s", n, out)
	}
	if !strings.Contains(out, `changed=3 up=0 down=3 unavailable=0 apps="checkout@Tel Aviv up->down, search@Tel Aviv up->down, billing@Frankfurt up->down"`) {
		t.Errorf("no summary line with counts and names:\n%s", out)
	}
	if strings.Contains(out, `=""`) {
		t.Errorf("empty attributes in the log:\n%s", out)
	}

	tm, logs = logMonitor(t, slog.LevelDebug)
	tm.src.Set("checkout", StatusUp, time.Millisecond)
	tm.scrape(t)
	out = logs.String()
	if n := countLines(out, "status changed"); n != 3 {
		t.Errorf("%d per-app lines at debug, want 3:\n%s", n, out)
	}
	if strings.Contains(out, `=""`) {
		t.Errorf("empty attributes in the log:\n%s", out)
	}
}

// Refused requests are logged one by one up to a burst per window; the
// rest are counted in one line when the window has passed.
func TestRefusalsRateLimited(t *testing.T) {
	tm := newAuthMonitor(t, false)
	var logs promtest.SyncBuffer
	tm.log = slog.New(slog.NewTextHandler(&logs, nil))
	for range 50 {
		if rec := do(t, tm.h, http.MethodPost, "/api/scrape-interval", `{"interval":"45s"}`, nil); rec.Code != http.StatusForbidden {
			t.Fatalf("unsigned POST: %d", rec.Code)
		}
	}
	if n := countLines(logs.String(), "request refused"); n != refusalBurst {
		t.Errorf("%d refusals logged one by one, want %d", n, refusalBurst)
	}
	tm.Monitor.clock.(*fakeClock).Advance(refusalWindow) // newAuthMonitor's clock
	tm.scrape(t)
	if !strings.Contains(logs.String(), `msg="more requests refused (not logged one by one)" count=45 window=1m`) {
		t.Errorf("no count of the unlogged refusals:\n%s", logs.String())
	}
	// A new window logs again.
	do(t, tm.h, http.MethodPost, "/api/scrape-interval", `{"interval":"45s"}`, nil)
	if n := countLines(logs.String(), "request refused"); n != refusalBurst+1 {
		t.Errorf("%d refusals logged after the window, want %d", n, refusalBurst+1)
	}
}

// A backend coming back after failing is logged once, not every cycle.
func TestBackendBackLoggedOnce(t *testing.T) {
	tm, logs := logMonitor(t, slog.LevelInfo)
	tm.scrape(t)
	tm.src.SetErr(errors.New("connection refused"))
	tm.scrape(t)
	tm.src.SetErr(nil)
	for range 3 {
		tm.scrape(t)
	}
	if n := countLines(logs.String(), "backend answering again"); n != 1 {
		t.Errorf("%d lines for the backend coming back, want 1:\n%s", n, logs.String())
	}
}

// A cycle cut by the monitor's context ending (SIGTERM for the binary) is
// not a backend failure: nothing is logged as one.
func TestCancelledCycleIsNotABackendFailure(t *testing.T) {
	tm, logs := logMonitor(t, slog.LevelInfo)
	started := make(chan struct{})
	tm.src.check = func(ctx context.Context, apps []App) ([]Result, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tm.Scrape(ctx) }()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Scrape: %v, want context.Canceled", err)
	}
	if out := logs.String(); strings.Contains(out, "level=WARN") || strings.Contains(out, "level=ERROR") {
		t.Errorf("a cancelled cycle logged a failure:\n%s", out)
	}
}

// A backend that stays down is logged when its checks start failing and
// when they answer again, with how many cycles failed, not once a cycle;
// meanwhile availmon_backend_connected is 0 and the scrape errors count.
func TestBackendDownLoggedAtStartAndEnd(t *testing.T) {
	tm, logs := logMonitor(t, slog.LevelInfo)
	tm.scrape(t)
	tm.src.SetErr(errors.New("connection refused"))
	const down = 100
	for range down {
		tm.clock.Advance(5 * time.Second)
		tm.scrape(t)
	}
	out := logs.String()
	if n := countLines(out, "backend check failed"); n != 1 {
		t.Errorf("%d warnings for %d failed cycles, want 1:\n%.2000s", n, down, out)
	}
	if !strings.Contains(out, `level=WARN msg="backend check failed" backend=`) || !strings.Contains(out, "connection refused") {
		t.Errorf("the warning does not say which backend and why:\n%.2000s", out)
	}
	metrics := metricsText(t, tm.h)
	if !strings.Contains(metrics, `availmon_backend_connected{backend="main"} 0`) {
		t.Errorf("availmon_backend_connected not 0 while the backend is down:\n%s", metrics)
	}
	if !strings.Contains(metrics, `availmon_scrape_errors_total{target="main"} 100`) {
		t.Errorf("the scrape errors do not count the failed cycles:\n%s", metrics)
	}
	if n := countLines(out, "backend answering again"); n != 0 {
		t.Errorf("the backend logged as answering while down:\n%.2000s", out)
	}
	tm.src.SetErr(nil)
	for range 3 {
		tm.clock.Advance(5 * time.Second)
		tm.scrape(t)
	}
	out = logs.String()
	want := `level=INFO msg="backend answering again" backend=main failed_cycles=100 lasted=8m20s`
	if n := strings.Count(out, want); n != 1 {
		t.Errorf("%d lines %q, want 1:\n%.3000s", n, want, out)
	}
	if n := countLines(out, "backend check failed"); n != 1 {
		t.Errorf("%d warnings after the backend came back, want 1", n)
	}
	// Failing again is a new condition: logged again.
	tm.src.SetErr(errors.New("connection refused"))
	tm.scrape(t)
	if n := countLines(logs.String(), "backend check failed"); n != 2 {
		t.Errorf("%d warnings after a second failure, want 2", n)
	}
}

// A failing backend that a reconfiguration removes is forgotten: one of the
// same name added later and failing is logged again.
func TestRemovedBackendFailingForgotten(t *testing.T) {
	tm, logs := logMonitor(t, slog.LevelInfo)
	tm.src.SetErr(errors.New("connection refused"))
	tm.scrape(t)
	for _, name := range []string{"other", "main"} {
		o := reconfigured(tm)
		o.Backends[0].Name = name
		if _, err := tm.Reconfigure(o); err != nil {
			t.Fatal(err)
		}
		tm.scrape(t)
	}
	if n := countLines(logs.String(), "backend check failed"); n != 3 {
		t.Errorf("%d warnings for main, other, then main again, want 3:\n%s", n, logs.String())
	}
}
