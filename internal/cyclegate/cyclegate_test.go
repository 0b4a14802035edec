package cyclegate

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Work waits for the running cycle, is interrupted by the next one and
// asked again after it, and runs through once it has given way MaxYields
// times.
func TestCycleGate(t *testing.T) {
	g := New()
	calls := make(chan context.Context)
	results := make(chan error)
	ask := func(ctx context.Context) error {
		calls <- ctx
		<-ctx.Done()
		return ctx.Err()
	}

	parent, stop := context.WithCancel(context.Background())
	defer stop()
	g.Begin() // a cycle runs: the work must wait for its end
	go func() { results <- g.Run(parent, ask) }()
	select {
	case <-calls:
		t.Fatal("work started while a cycle ran")
	case <-time.After(50 * time.Millisecond):
	}
	g.End()
	for i := range MaxYields {
		ctx := <-calls // started once the cycle ended
		g.Begin()
		<-ctx.Done()
		if !errors.Is(context.Cause(ctx), ErrCycleBegan) {
			t.Fatalf("yield %d: cause %v", i, context.Cause(ctx))
		}
		g.End()
	}
	// Given way MaxYields times: the next call is not interrupted.
	ctx := <-calls
	g.Begin()
	select {
	case <-ctx.Done():
		t.Fatal("interrupted after MaxYields")
	case <-time.After(50 * time.Millisecond):
	}
	g.End()
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
	g := New()
	want := errors.New("refused")
	if err := g.Run(context.Background(), func(context.Context) error { return want }); err != want {
		t.Fatalf("run = %v, want %v", err, want)
	}
	g.Begin()
	defer g.End()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := g.Run(ctx, func(context.Context) error { t.Error("asked during a cycle"); return nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("run = %v, want the caller's deadline", err)
	}
}

// Try asks once: interrupted by a cycle, it says so (ErrCycleBegan)
// instead of asking again whole, so that its caller can ask in parts;
// answered, it returns the answer's error.
func TestCycleGateTry(t *testing.T) {
	g := New()
	calls := 0
	err := g.Try(context.Background(), func(ctx context.Context) error {
		calls++
		g.Begin() // a cycle begins while the work runs
		<-ctx.Done()
		return ctx.Err()
	})
	if !errors.Is(err, ErrCycleBegan) || calls != 1 {
		t.Fatalf("Try interrupted: %v after %d calls, want ErrCycleBegan after 1", err, calls)
	}
	g.End()
	if err := g.Try(context.Background(), func(context.Context) error { return nil }); err != nil {
		t.Fatalf("Try answered: %v", err)
	}
	if g.Began().IsZero() {
		t.Fatal("Began is zero after a cycle began")
	}
}
