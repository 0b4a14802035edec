package availmontest_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon"
	"github.com/availmon/availmon/availmontest"
)

// fired is the names of the timers that have sent, in the order they sent,
// taking what they sent.
func fired(names []string, timers []availmon.Timer) []string {
	var out []string
	for i, tm := range timers {
		select {
		case <-tm.C():
			out = append(out, names[i])
		default:
		}
	}
	return out
}

// Advance fires what is due by the end of the advance, once, and nothing
// else; a timer of no duration fires at once.
func TestClockTimers(t *testing.T) {
	c := availmontest.NewClock(t0)
	names := []string{"now", "1m", "2m", "1h"}
	var timers []availmon.Timer
	for _, d := range []time.Duration{0, time.Minute, 2 * time.Minute, time.Hour} {
		timers = append(timers, c.NewTimer(d))
	}
	if diff := cmp.Diff([]string{"now"}, fired(names, timers)); diff != "" {
		t.Errorf("at once (-want +got):\n%s", diff)
	}
	if n := c.Timers(); n != 3 {
		t.Errorf("%d timers set, want 3", n)
	}
	c.Advance(59 * time.Second)
	if got := fired(names, timers); len(got) != 0 {
		t.Errorf("after 59s, fired %v", got)
	}
	c.Advance(10 * time.Minute)
	if diff := cmp.Diff([]string{"1m", "2m"}, fired(names, timers)); diff != "" {
		t.Errorf("after 10m59s (-want +got):\n%s", diff)
	}
	if !c.Now().Equal(t0.Add(10*time.Minute + 59*time.Second)) {
		t.Errorf("Now = %s after advancing 10m59s", c.Now())
	}
	c.Advance(time.Hour)
	if diff := cmp.Diff([]string{"1h"}, fired(names, timers)); diff != "" {
		t.Errorf("after the hour (-want +got):\n%s", diff)
	}
	if n := c.Timers(); n != 0 {
		t.Errorf("%d timers set after all fired, want 0", n)
	}
}

// Stop and Reset discard a time sent and not received, as a Go timer's do,
// and report whether the timer was set.
func TestClockTimerStopReset(t *testing.T) {
	c := availmontest.NewClock(t0)
	tm := c.NewTimer(time.Minute)
	if !tm.Stop() {
		t.Error("Stop of a set timer returned false")
	}
	c.Advance(time.Hour)
	if tm.Stop() {
		t.Error("Stop of a stopped timer returned true")
	}
	if tm.Reset(time.Minute) {
		t.Error("Reset of a stopped timer returned true")
	}
	c.Advance(time.Minute) // fires; not received
	if tm.Reset(time.Minute) {
		t.Error("Reset of a fired timer returned true")
	}
	select {
	case <-tm.C():
		t.Error("Reset left the time sent before it in the channel")
	default:
	}
	c.Advance(time.Minute)
	select {
	case at := <-tm.C():
		if !at.Equal(t0.Add(62 * time.Minute)) {
			t.Errorf("the timer sent %s, want the clock's reading %s", at, t0.Add(62*time.Minute))
		}
	default:
		t.Error("the reset timer did not fire")
	}
}

// Set forward is time passing; Set back and Step set the clock: no timer
// fires, and Elapsed leaves the step out.
func TestClockSetAndStep(t *testing.T) {
	c := availmontest.NewClock(t0)
	tm := c.NewTimer(time.Hour)
	a := c.Now()
	c.Step(24 * time.Hour)
	c.Set(c.Now().Add(-48 * time.Hour))
	b := c.Now()
	select {
	case <-tm.C():
		t.Fatal("a timer fired when the clock was set")
	default:
	}
	if !b.Equal(t0.Add(-24 * time.Hour)) {
		t.Errorf("Now = %s, want %s", b, t0.Add(-24*time.Hour))
	}
	if d := c.Elapsed(a, b); d != 0 {
		t.Errorf("Elapsed across steps only = %s, want 0", d)
	}
	c.Set(b.Add(time.Hour)) // forward: an hour passes
	cNow := c.Now()
	if d := c.Elapsed(a, cNow); d != time.Hour {
		t.Errorf("Elapsed = %s, want the hour that passed", d)
	}
	select {
	case <-tm.C():
	default:
		t.Error("the hour's timer did not fire when Set moved the clock an hour forward")
	}
	if d := c.Elapsed(t0.Add(time.Minute), t0.Add(3*time.Minute)); d != 2*time.Minute {
		t.Errorf("Elapsed of times Now did not give = %s, want their difference", d)
	}
}

// Advance back would be time running backwards.
func TestClockAdvanceNegativePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Advance(-1s) did not panic")
		}
	}()
	availmontest.NewClock(t0).Advance(-time.Second)
}

// BlockUntil returns once enough timers are set, or with ctx's error.
func TestClockBlockUntil(t *testing.T) {
	c := availmontest.NewClock(t0)
	set := make(chan struct{})
	go func() {
		<-set
		c.NewTimer(time.Minute)
	}()
	close(set)
	if err := c.BlockUntil(guard(t), 1); err != nil {
		t.Fatalf("BlockUntil(1): %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.BlockUntil(ctx, 2); err != context.Canceled {
		t.Errorf("BlockUntil with a context ended: %v, want context.Canceled", err)
	}
}
