package availmon

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/availmon/availmon/hmac"
)

// DefaultSaveInterval is how often a Monitor with a Store saves its state
// while it runs, when Options.SaveInterval is zero.
const DefaultSaveInterval = time.Minute

// saveTimeout bounds one Save, so that a hung disk cannot hold up Run's
// return forever.
const saveTimeout = 30 * time.Second

// replayKeeper is an Authenticator whose replay cache can outlive a restart;
// *hmac.Verifier is one.
type replayKeeper interface {
	ReplayEntries() []hmac.ReplayEntry
	RestoreReplay([]hmac.ReplayEntry) int
}

var _ replayKeeper = (*hmac.Verifier)(nil)

// copyState takes what a save writes. It holds cycleMu, so the copy is of
// the state between two cycles; it only copies, and encoding happens after
// the lock is released.
func (m *Monitor) copyState() *savedState {
	m.cycleMu.Lock()
	st := m.state
	s := &savedState{
		savedAt: m.clock.Now(),
		minutes: m.hist.seen(),
		sysDay:  st.sysDay,
		locs:    make([]savedLocation, len(m.plan.locations)),
		apps:    make([]savedApp, len(m.plan.apps)),
	}
	if iv := m.interval.Load(); iv.runtime {
		s.interval = iv
	}
	for i, l := range m.plan.locations {
		s.locs[i] = savedLocation{name: l.Name, day: st.locDay[i]}
	}
	// One allocation for every app's checks: a copy, not 10,000 of them.
	arena := make([]checkEntry, 0, len(m.plan.apps)*m.historySize)
	for i, a := range m.plan.apps {
		from := len(arena)
		arena = st.history[i].appendTo(arena)
		s.apps[i] = savedApp{name: a.Name, location: a.Location, state: st.apps[i],
			history: arena[from:len(arena):len(arena)], day: *st.appDay[i].window()}
	}
	m.cycleMu.Unlock()
	if k, ok := m.auth.(replayKeeper); ok {
		s.replay = k.ReplayEntries()
	}
	s.maint = m.maint.saved()
	return s
}

// restore loads the saved state into a Monitor that has not run yet. A
// store that fails, or holds something unreadable, is logged and the
// monitor starts afresh: a monitor never refuses to start for its memory.
func (m *Monitor) restore(ctx context.Context) {
	var s *savedState
	err := m.store.Load(ctx, func(data []byte) error {
		var err error
		s, err = decodeState(data)
		return err
	})
	if err != nil {
		m.log.Warn("cannot restore the saved state; starting without it", "err", err)
		return
	}
	if s == nil {
		m.log.Info("no saved state; starting afresh")
		return
	}
	kept := m.apply(s)
	m.log.Info("restored the saved state", "saved_at", s.savedAt.UTC(), "apps", kept, "apps_dropped", len(s.apps)-kept)
}

// apply folds s into the fresh state, by name, and returns how many apps of
// s are still configured.
func (m *Monitor) apply(s *savedState) int {
	st := m.state
	now := m.clock.Now()
	m.hist.restore(s.minutes, now)
	st.sysDay = s.sysDay
	for _, l := range s.locs {
		if i, ok := m.plan.locIndex[l.name]; ok {
			st.locDay[i] = l.day
		}
	}
	kept := 0
	for _, a := range s.apps {
		i, ok := m.plan.appIndex[a.name]
		if !ok {
			m.awaitDiscovery(a) // a discovered app, until its rule finds it
			continue
		}
		kept++
		st.apps[i] = a.state
		if !a.state.checked {
			st.apps[i].status = StatusUnavailable
		}
		st.history[i].restore(a.history, m.historySize)
		st.appDay[i].set(&a.day)
	}
	if s.interval != nil {
		iv := *s.interval
		m.interval.Store(&iv)
	}
	if k, ok := m.auth.(replayKeeper); ok && len(s.replay) > 0 {
		n := k.RestoreReplay(s.replay)
		m.log.Info("restored the replay cache", "signatures", n)
	}
	m.restoreMaintenance(s.maint)
	return kept
}

// save takes a copy of the state and writes it to the store.
func (m *Monitor) save(ctx context.Context) error { return m.write(ctx, m.copyState()) }

// write encodes s and writes it to the store.
func (m *Monitor) write(ctx context.Context, s *savedState) error {
	start := time.Now()
	data := encodeState(s)
	ctx, cancel := context.WithTimeout(ctx, saveTimeout)
	defer cancel()
	if err := m.store.Save(ctx, data); err != nil {
		m.log.Warn("cannot save the state", "err", err)
		return err
	}
	m.log.Debug("state saved", "bytes", len(data), "duration", time.Since(start))
	return nil
}

// saver saves a Run's state. The copy a save needs holds the cycle lock, so
// Run takes it right after a cycle (afterCycle), an interval before the
// next one is due: a save then never delays a cycle. The saver's own
// goroutine encodes and writes it, and takes a copy itself only when no
// cycle came for a whole save interval (a long scrape interval), so that
// what changes between cycles (the interval, the replay cache) is still
// saved in time.
type saver struct {
	m        *Monitor
	copies   chan *savedState
	lastCopy atomic.Int64 // unix nanoseconds, wall clock
	stop     context.CancelFunc
	done     chan struct{}
	ctx      context.Context
}

// startSaving starts the saver when there is a store; nil otherwise (its
// methods then do nothing).
func (m *Monitor) startSaving(ctx context.Context) *saver {
	if m.store == nil {
		return nil
	}
	loopCtx, stop := context.WithCancel(ctx)
	sv := &saver{m: m, copies: make(chan *savedState, 1), stop: stop, done: make(chan struct{}), ctx: ctx}
	sv.lastCopy.Store(time.Now().UnixNano())
	go func() {
		defer close(sv.done)
		sv.loop(loopCtx)
	}()
	return sv
}

// afterCycle takes a copy for the saver when a save is due.
func (sv *saver) afterCycle() {
	if sv == nil || time.Since(time.Unix(0, sv.lastCopy.Load())) < sv.m.saveInterval {
		return
	}
	sv.lastCopy.Store(time.Now().UnixNano())
	select {
	case sv.copies <- sv.m.copyState():
	default: // the last copy is still being written: this one can wait
	}
}

func (sv *saver) loop(ctx context.Context) {
	t := time.NewTicker(sv.m.saveInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case s := <-sv.copies:
			_ = sv.m.write(ctx, s)
		case <-t.C:
			if time.Since(time.Unix(0, sv.lastCopy.Load())) >= 2*sv.m.saveInterval {
				sv.lastCopy.Store(time.Now().UnixNano())
				_ = sv.m.save(ctx)
			}
		}
	}
}

// finish stops the saver and saves one last time, after Run's last cycle.
func (sv *saver) finish() {
	if sv == nil {
		return
	}
	sv.stop()
	<-sv.done
	// Run's ctx has ended: the last save must not be cut short by it.
	if err := sv.m.save(context.WithoutCancel(sv.ctx)); err == nil {
		sv.m.log.Info("state saved for the next start")
	}
}

// seen returns a copy of the buckets that hold an observation.
func (h *minuteHistory) seen() []minuteBucket {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []minuteBucket
	for _, b := range h.buckets {
		if b.seen {
			out = append(out, b)
		}
	}
	return out
}

// restore puts saved buckets back, skipping those older than the history
// keeps or from the future of now (a clock that went back).
func (h *minuteHistory) restore(bs []minuteBucket, now time.Time) {
	cur := now.Unix() / 60
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, b := range bs {
		if b.minute <= cur-historyMinutes || b.minute > cur {
			continue
		}
		slot := &h.buckets[mod(b.minute, historyMinutes)]
		if !slot.seen || slot.minute < b.minute {
			*slot = b
			slot.seen = true
		}
	}
}
