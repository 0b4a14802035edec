// Package cyclegate lets background work give way to the monitor's check
// cycles: the cycle calls Gate.Begin and Gate.End, the work runs through
// Gate.Run, which waits for a running cycle to end and is interrupted by
// the next one to begin.
package cyclegate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Gate lets background work against the backends (the backfill) give
// way to the cycles: it starts only while no cycle runs, and a cycle that
// begins meanwhile interrupts it, to be asked again after that cycle. On a
// small machine a long range query beside a cycle's queries can double the
// cycle's time; the cycle is what the API shows, the backfill can wait.
type Gate struct {
	mu      sync.Mutex
	running bool
	idle    chan struct{} // closed when the running cycle ends
	begun   chan struct{} // closed when the next cycle begins
	ends    chan struct{} // closed when the next cycle ends
	began   time.Time     // when the last cycle began, on the wall clock
	gap     time.Duration // between the last two cycles' beginnings
}

func New() *Gate {
	g := &Gate{idle: make(chan struct{}), begun: make(chan struct{}), ends: make(chan struct{})}
	close(g.idle)
	return g
}

// Begin marks a cycle running and interrupts the work under way.
func (g *Gate) Begin() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running = true
	now := time.Now()
	if !g.began.IsZero() {
		g.gap = now.Sub(g.began)
	}
	g.began = now
	g.idle = make(chan struct{})
	close(g.begun)
	g.begun = make(chan struct{})
}

// End marks the cycle done and lets waiting work start.
func (g *Gate) End() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running = false
	close(g.idle)
	close(g.ends)
	g.ends = make(chan struct{})
}

// Ended returns a channel closed when the next cycle ends.
func (g *Gate) Ended() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ends
}

// Began is when the last cycle began, on the wall clock (zero before the
// first): the work sizes its pieces to the backend's pace, which is wall
// time, and starts one only if it can end before the next cycle.
func (g *Gate) Began() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.began
}

// Gap is the time between the last two cycles' beginnings, on the wall
// clock; zero before the second cycle.
func (g *Gate) Gap() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.gap
}

// ErrCycleBegan is the cause of a context a cycle interrupted.
var ErrCycleBegan = errors.New("a cycle began")

// MaxYields bounds how often one piece of work gives way: with cycles back
// to back it would otherwise never run.
const MaxYields = 3

// Run calls ask once no cycle runs, with a context that a cycle beginning
// cancels; interrupted, ask is called again after that cycle, up to
// MaxYields times, and then without interruption.
func (g *Gate) Run(ctx context.Context, ask func(context.Context) error) error {
	for yields := 0; ; yields++ {
		if yields >= MaxYields {
			return g.Whole(ctx, ask)
		}
		err := g.Try(ctx, ask)
		if !errors.Is(err, ErrCycleBegan) || ctx.Err() != nil {
			return err
		}
	}
}

// Whole calls ask once no cycle runs, and lets it run to its end whatever
// cycle begins meanwhile.
func (g *Gate) Whole(ctx context.Context, ask func(context.Context) error) error {
	if err := g.waitIdle(ctx); err != nil {
		return err
	}
	return ask(ctx)
}

// waitIdle returns when no cycle runs, or with ctx's error when it ends
// first.
func (g *Gate) waitIdle(ctx context.Context) error {
	g.mu.Lock()
	idle := g.idle
	g.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Try calls ask once, when no cycle runs, with a context that a cycle
// beginning cancels; interrupted, it returns an error that is
// ErrCycleBegan, for work that is better asked again in smaller parts than
// whole (the backfill's questions).
func (g *Gate) Try(ctx context.Context, ask func(context.Context) error) error {
	for {
		if err := g.waitIdle(ctx); err != nil {
			return err
		}
		g.mu.Lock()
		if !g.running { // else a cycle began between the two looks
			break
		}
		g.mu.Unlock()
	}
	begun := g.begun
	g.mu.Unlock()
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan struct{})
	go func() {
		select {
		case <-begun:
			cancel(ErrCycleBegan)
		case <-done:
		}
	}()
	err := ask(actx)
	close(done)
	if err != nil && context.Cause(actx) == ErrCycleBegan && ctx.Err() == nil {
		return fmt.Errorf("%w: %w", ErrCycleBegan, err)
	}
	return err
}
