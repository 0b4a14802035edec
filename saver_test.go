package availmon

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// gateStore is a fault-injecting Store the test steps through, as a disk
// it owns: each Save hands its data on entered and returns what the test
// sends on verdict. What a Load after a SIGKILL would find is whatever the
// test committed, that is the data of the last save it let succeed.
type gateStore struct {
	entered chan []byte
	verdict chan error
}

func newGateStore() *gateStore {
	return &gateStore{entered: make(chan []byte), verdict: make(chan error)}
}

func (s *gateStore) Load(context.Context, func([]byte) error) error { return nil }

func (s *gateStore) Save(ctx context.Context, data []byte) error {
	select {
	case s.entered <- data:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-s.verdict:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// started waits for the next save to start, and returns its data. A save
// that never starts fails the test rather than hanging it.
func (s *gateStore) started(t *testing.T) []byte {
	t.Helper()
	select {
	case data := <-s.entered:
		return data
	case <-time.After(30 * time.Second): // a hang, not a measurement
		t.Fatal("no save started within 30s")
		return nil
	}
}

// dueSaver starts tm's saver on a schedule the test drives: a send on the
// returned channel is a tick of the save interval's ticker, which keeps one
// tick its receiver is too busy for and drops the rest.
func dueSaver(t *testing.T, tm *testMonitor) (tick func(), sv *saver) {
	due := make(chan time.Time, 1)
	ctx, cancel := context.WithCancel(t.Context())
	sv = tm.startSaver(ctx, due, nil, func() {})
	t.Cleanup(func() { cancel(); <-sv.done })
	return func() {
		select {
		case due <- tm.clock.Now():
		default:
		}
	}, sv
}

// newestCheck is the time of the newest check of app in an encoded state;
// zero for no state.
func newestCheck(t *testing.T, data []byte, app string) time.Time {
	t.Helper()
	if data == nil {
		return time.Time{}
	}
	s, err := decodeState(data)
	if err != nil {
		t.Fatalf("a saved state does not decode: %v", err)
	}
	for _, a := range s.Apps {
		if a.Name == app && len(a.Checks) > 0 {
			return time.Unix(0, a.Checks[len(a.Checks)-1].At)
		}
	}
	return time.Time{}
}

// A SIGKILL loses at most the save interval plus the time one save takes
// (docs/decisions.md, Storage), wherever it strikes: between cycles, during
// a save, right before one ends. Cycles every 10s, a save due every 60s
// whether a cycle ends then or not, each taking 25s to write, cycles going
// on meanwhile. At every step the state a restart would find (the last
// save the disk took) holds every check older than 60s+25s.
func TestSaverLossBound(t *testing.T) {
	const (
		cycle    = 10 * time.Second
		interval = 60 * time.Second
		write    = 25 * time.Second
	)
	st := newGateStore()
	tm := newStoreMonitor(t, st, newFakeClock(t0), func(o *Options) { o.SaveInterval = interval })
	tm.src.Set("checkout", StatusUp, time.Millisecond)
	tick, _ := dueSaver(t, tm)
	var (
		disk     []byte      // what a restart would load
		writing  []byte      // the save being written, if any
		writeEnd time.Time   // when it is written
		checks   []time.Time // every check of checkout, in order
		worst    time.Duration
		due      bool // a tick the saver has not taken yet
	)
	kill := func() { // what a SIGKILL now would lose
		now := tm.clock.Now()
		kept := newestCheck(t, disk, "checkout")
		for _, c := range checks {
			if !c.After(now.Add(-interval-write)) && c.After(kept) {
				t.Fatalf("a kill at +%s loses the check of +%s: the disk holds checks up to +%s",
					now.Sub(t0), c.Sub(t0), kept.Sub(t0))
			}
		}
		if len(checks) > 0 && checks[len(checks)-1].After(kept) {
			worst = max(worst, now.Sub(kept))
		}
	}
	// Every second of 15 minutes: a cycle every 10s (at +3s into each, so
	// that saves fall due between cycles), a save due every minute.
	for sec := 1; sec <= 900; sec++ {
		tm.clock.Advance(time.Second)
		now := tm.clock.Now()
		if sec%int(cycle/time.Second) == 3 {
			tm.scrape(t)
			checks = append(checks, now)
		}
		kill()
		if writing != nil && !now.Before(writeEnd) {
			disk, writing = writing, nil
			st.verdict <- nil
			kill()
		}
		if sec%int(interval/time.Second) == 0 {
			tick()
			due = true
		}
		if writing == nil && due {
			writing, due = st.started(t), false
			writeEnd = now.Add(write)
		}
		kill()
	}
	if worst <= interval {
		t.Errorf("the worst loss seen was %s: the test did not reach kills during a save", worst)
	}
}

// A save that falls due during a cycle waits for the cycle's end and holds
// its result.
func TestSaverDueDuringCycle(t *testing.T) {
	st := newGateStore()
	tm := newStoreMonitor(t, st, newFakeClock(t0))
	inCycle, release := make(chan struct{}), make(chan struct{})
	tm.src.check = func(_ context.Context, apps []App) ([]Result, error) {
		inCycle <- struct{}{}
		<-release
		out := make([]Result, len(apps))
		for i := range out {
			out[i] = Result{Status: StatusUp}
		}
		return out, nil
	}
	tick, _ := dueSaver(t, tm)
	tm.clock.Advance(time.Minute)
	cycleAt := tm.clock.Now()
	scraped := make(chan error, 1)
	go func() { scraped <- tm.Scrape(t.Context()) }()
	<-inCycle
	tick() // while the cycle holds the state
	close(release)
	if err := <-scraped; err != nil {
		t.Fatal(err)
	}
	data := st.started(t)
	st.verdict <- nil
	if got := newestCheck(t, data, "checkout"); !got.Equal(cycleAt) {
		t.Errorf("the save due during the cycle holds checkout's check of %s, want the cycle's of %s", got, cycleAt)
	}
}

// One save at a time: saves that fall due while one is being written make
// one more save when it ends, not a pile of encodings behind a slow disk.
func TestSaverOneAtATime(t *testing.T) {
	st := newGateStore()
	var saves atomic.Int32
	counted := storeFuncs{load: st.Load, save: func(ctx context.Context, data []byte) error {
		saves.Add(1)
		return st.Save(ctx, data)
	}}
	tm := newStoreMonitor(t, counted, newFakeClock(t0))
	tm.scrape(t)
	tick, sv := dueSaver(t, tm)
	tick()
	st.started(t)
	for range 5 {
		tick() // while the first is being written
	}
	st.verdict <- nil
	st.started(t) // the one tick the ticker kept
	st.verdict <- nil
	tm.clock.Advance(time.Minute)
	tm.scrape(t)
	finished := make(chan struct{})
	go func() { sv.finish(); close(finished) }()
	last := st.started(t)
	st.verdict <- nil
	<-finished
	if n := saves.Load(); n != 3 {
		t.Errorf("%d saves, want 3: the first, one for the ticks during it, the last of finish", n)
	}
	if got := newestCheck(t, last, "checkout"); !got.Equal(tm.clock.Now()) {
		t.Errorf("finish saved checkout's check of %s, want the last cycle's", got)
	}
}

// storeFuncs is a Store of two functions.
type storeFuncs struct {
	load func(context.Context, func([]byte) error) error
	save func(context.Context, []byte) error
}

func (s storeFuncs) Load(ctx context.Context, decode func([]byte) error) error {
	return s.load(ctx, decode)
}
func (s storeFuncs) Save(ctx context.Context, data []byte) error { return s.save(ctx, data) }
