package availmon

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Work waits for the running cycle, is interrupted by the next one and
// asked again after it, and runs through once it has given way maxYields
// times.
func TestCycleGate(t *testing.T) {
	g := newCycleGate()
	calls := make(chan context.Context)
	results := make(chan error)
	ask := func(ctx context.Context) error {
		calls <- ctx
		<-ctx.Done()
		return ctx.Err()
	}

	parent, stop := context.WithCancel(context.Background())
	defer stop()
	g.begin() // a cycle runs: the work must wait for its end
	go func() { results <- g.run(parent, ask) }()
	select {
	case <-calls:
		t.Fatal("work started while a cycle ran")
	case <-time.After(50 * time.Millisecond):
	}
	g.end()
	for i := range maxYields {
		ctx := <-calls // started once the cycle ended
		g.begin()
		<-ctx.Done()
		if !errors.Is(context.Cause(ctx), errCycleBegan) {
			t.Fatalf("yield %d: cause %v", i, context.Cause(ctx))
		}
		g.end()
	}
	// Given way maxYields times: the next call is not interrupted.
	ctx := <-calls
	g.begin()
	select {
	case <-ctx.Done():
		t.Fatal("interrupted after maxYields")
	case <-time.After(50 * time.Millisecond):
	}
	g.end()
	select {
	case err := <-results:
		t.Fatalf("run returned %v while its work still ran", err)
	default:
	}
	stop()
	if err := <-results; !errors.Is(err, context.Canceled) {
		t.Fatalf("run = %v after the caller's cancel", err)
	}
}

// An answer that came back is returned as it is, and the caller's context
// ends the wait for a cycle.
func TestCycleGateReturns(t *testing.T) {
	g := newCycleGate()
	want := errors.New("refused")
	if err := g.run(context.Background(), func(context.Context) error { return want }); err != want {
		t.Fatalf("run = %v, want %v", err, want)
	}
	g.begin()
	defer g.end()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := g.run(ctx, func(context.Context) error { t.Error("asked during a cycle"); return nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("run = %v, want the caller's deadline", err)
	}
}
