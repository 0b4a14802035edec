package availmon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/availmon/availmon/hmac"
	"github.com/availmon/availmon/internal/errtext"
	"github.com/availmon/availmon/internal/history"
	"github.com/availmon/availmon/internal/jsontime"
	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/internal/statefile"
	"github.com/availmon/availmon/promexport"
)

// Store keeps what a Monitor knows across restarts: the status history, the
// 24h counters, each app's recent checks and last state, the interval set
// through the API and the Authenticator's replay cache (when it is a
// ReplayKeeper, as *hmac.Verifier is). The data is opaque to the store; it is keyed inside by app
// and location name, so a configuration that changed between two runs keeps
// what belongs to every app and location still there and drops the rest.
//
// The filestore package has the built-in implementation. A Monitor without a
// Store does no file I/O at all.
type Store interface {
	// Load hands the state saved last to decode. It returns nil without
	// calling decode when nothing was saved yet. When the saved state is
	// unreadable (damaged, written by an unknown version) or decode refuses
	// it, Load must set it aside, so that the next Save does not destroy
	// it, and return an error; the Monitor then starts afresh.
	Load(ctx context.Context, decode func(data []byte) error) error
	// Save replaces the saved state with data, atomically: after a crash,
	// Load finds either the previous state or this one, whole.
	Save(ctx context.Context, data []byte) error
}

// A StreamSaver is a Store that also takes a save as a stream: the state is
// encoded straight into the store's writer, never held whole in memory (at
// 10,000 apps with 400 days of record it is over 150 MB, which a Save's
// data would add to the heap at every save). A Monitor saves through
// SaveFrom when its Store has it, through Save otherwise. filestore.Store
// is one.
type StreamSaver interface {
	// SaveFrom replaces the saved state with what src.WriteTo writes,
	// atomically as Save does. It calls src.WriteTo at most once, and
	// fails the save, keeping the state saved before, when WriteTo
	// returns an error. The bytes WriteTo writes are those Save would be
	// given.
	SaveFrom(ctx context.Context, src io.WriterTo) error
}

// ErrBadState is wrapped by the error a Store's decode function returns for
// data it cannot use (damaged, or of an unknown encoding version).
var ErrBadState = errors.New("availmon: saved state is unreadable")

// DefaultSaveInterval is how often a Monitor with a Store saves its state
// while it runs, when Options.SaveInterval is zero.
const DefaultSaveInterval = time.Minute

// saveTimeout bounds one Save, so that a hung disk cannot hold up Run's
// return forever.
const saveTimeout = 30 * time.Second

// restore loads the saved state into a Monitor that has not run yet. A
// store that fails, or holds something unreadable, is logged and the
// monitor starts afresh: a monitor never refuses to start for its memory.
func (m *Monitor) restore(ctx context.Context) {
	var s *statefile.State
	err := m.persist.store.Load(ctx, func(data []byte) error {
		var err error
		s, err = decodeState(data)
		if s != nil {
			// The ledger is restored from its decoded records: the
			// file's bytes, as large as the state, go once Load ends,
			// before the live state is built from s.
			s.Ledger = nil
		}
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
	// A saved app the plan does not list waits for a discovery rule to
	// find it: it is not dropped yet (stopAwaiting logs those that go).
	m.log.Info("restored the saved state", "saved_at", s.SavedAt.UTC(), "apps", kept,
		"apps_awaiting_discovery", len(m.disc.awaiting), "apps_dropped", len(s.Apps)-kept-len(m.disc.awaiting))
}

// decodeState reads a state file (internal/statefile) and checks what only
// a monitor knows the bounds of: an error wraps ErrBadState, so that the
// Store sets the file aside.
func decodeState(b []byte) (*statefile.State, error) {
	s, err := statefile.Decode(b)
	if err == nil && s.Interval != nil {
		if e := checkInterval(s.Interval.D); e != nil {
			s, err = nil, fmt.Errorf("interval %s out of range", s.Interval.D)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadState, err)
	}
	return s, nil
}

// apply folds s into the fresh state, by name, and returns how many apps of
// s are still configured.
func (m *Monitor) apply(s *statefile.State) int {
	st := m.state
	now := m.clock.Now()
	m.hist.restore(s.Minutes, now)
	st.sysDay = history.DayOfFile(&s.System)
	for _, l := range s.Locations {
		if i, ok := m.plan.locIndex[l.Name]; ok {
			st.locDay[i] = history.DayOfFile(&l.Day)
		}
	}
	kept := 0
	for k := range s.Apps {
		a := appFromFile(&s.Apps[k])
		i, ok := m.plan.appIndex[a.name]
		if !ok {
			m.awaitDiscovery(a) // a discovered app, until its rule finds it
			continue
		}
		kept++
		st.apps[i] = a.state
		st.setErr(i, a.err)
		if !a.state.checked() {
			st.apps[i].setStatus(StatusUnavailable)
		}
		st.history[i].Restore(a.history, m.cfg.historySize, st.rts, history.SharedInFile(s.Apps, k))
		st.editDay(i, func(w *history.AppDay) { w.Set(&a.day) })
	}
	if iv := s.Interval; iv != nil {
		// Only an interval set at run time is saved, so one read back
		// was set at run time too, and is saved again until set anew.
		m.restoreInterval(intervalSetting{d: iv.D, text: iv.Text, runtime: true})
	}
	if k, ok := m.api.auth.(ReplayKeeper); ok && len(s.Replay) > 0 {
		n := k.RestoreReplay(s.Replay)
		m.log.Info("restored the replay cache", "signatures", n)
	}
	m.restoreMaintenance(s.Maintenance)
	if s.Records != nil {
		m.restoreLedger(s.Records, now)
	}
	return kept
}

// savedApp is an app of a state file in the monitor's own types.
type savedApp struct {
	name, location string
	state          appState
	err            string          // the last check's error text
	history        []history.Check // oldest first
	day            history.Day
}

func appFromFile(a *statefile.App) savedApp {
	out := savedApp{name: a.Name, location: a.Location, day: history.DayOfFile(&a.Day),
		history: make([]history.Check, len(a.Checks))}
	for i, c := range a.Checks {
		out.history[i] = history.Check{At: c.At, RT: c.RT, Status: history.StatusOfFile(c.Status), Err: c.Err}
	}
	out.state = unchecked()
	if a.Last.Checked {
		out.state = checkedState(statusOfHist(history.StatusOfFile(a.Last.Status)), a.Last.At, a.Last.RT)
	}
	out.err = a.Last.Err
	return out
}

// lastToFile is st, with its error text err, as a state file keeps it.
func lastToFile(st *appState, err string) statefile.Last {
	if !st.checked() {
		return statefile.Last{}
	}
	return statefile.Last{Checked: true, Status: statusToFile(st.status()), At: st.lastCheck, RT: st.rt, Err: err}
}

// statusToFile is s's code in the state file, whose codes were fixed
// before the statusCode a running monitor keeps.
func statusToFile(s Status) statefile.Status {
	switch s {
	case StatusUp:
		return statefile.Up
	case StatusDown:
		return statefile.Down
	default:
		return statefile.Unavailable
	}
}

// restoreInterval puts back the interval last set at run time. It wins over
// the configured one, so it says so: an operator who changed the file's
// scrape_interval while availmon was down would otherwise wonder why it is
// not used.
func (m *Monitor) restoreInterval(iv intervalSetting) {
	configured := m.interval.Load()
	m.interval.Store(&iv)
	if iv.d != configured.d {
		m.log.Info("restored the scrape interval set at run time; it overrides the configured one",
			"interval", iv.text, "configured", configured.text)
	}
}

// write writes the state encoded at at to the store, and records how it
// went.
func (m *Monitor) write(ctx context.Context, at time.Time, data []byte) error {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, saveTimeout)
	defer cancel()
	err := m.persist.store.Save(ctx, data)
	m.persist.saves.done(at, err)
	if err != nil {
		m.log.Warn("cannot save the state", "err", err)
		return err
	}
	m.log.Debug("state saved", "bytes", len(data), "duration", time.Since(start))
	return nil
}

// saver saves a Run's state on a schedule of its own: a save falls due
// every save interval, whenever the cycles end, so that a SIGKILL loses at
// most the interval and the time one save takes (docs/decisions.md,
// Storage). The save's cut holds the cycle lock (savecut.go): a save that
// falls due during a cycle is cut right after it, and one that falls due
// between cycles at once (a cycle due meanwhile waits the cut's
// milliseconds); the encoding goes on after, beside the cycles. Its
// own goroutine encodes and writes one save at a time: a save that falls
// due while one is being written starts when that one ends, and more do
// not pile up behind a slow disk.
type saver struct {
	m        *Monitor
	due      <-chan time.Time // a save falls due at each receive
	next     func()           // called as each receive is taken: schedules the next
	lastSize atomic.Int64     // bytes of the last state: the next one's capacity
	stop     context.CancelFunc
	done     chan struct{}
	ctx      context.Context
}

// startSaving starts the saver when there is a store, saving every save
// interval; nil otherwise (its methods then do nothing).
func (m *Monitor) startSaving(ctx context.Context) *saver {
	if m.persist.store == nil {
		return nil
	}
	// On the monitor's timers, so that a test clock drives the saves too.
	// The timer is set again as soon as it fires, before the save, so the
	// schedule keeps its interval whatever a save takes; one that falls
	// due during a save waits for it, as a ticker's tick would.
	t := m.timers.NewTimer(m.persist.interval)
	return m.startSaver(ctx, t.C(), func() { t.Reset(m.persist.interval) }, func() { t.Stop() })
}

// startSaver starts a saver that saves whenever due delivers, calling next
// (unless nil) as each delivery is taken, and stopDue when it stops.
func (m *Monitor) startSaver(ctx context.Context, due <-chan time.Time, next, stopDue func()) *saver {
	loopCtx, stop := context.WithCancel(ctx)
	sv := &saver{m: m, due: due, next: next, stop: stop, done: make(chan struct{}), ctx: ctx}
	go func() {
		defer close(sv.done)
		defer stopDue()
		sv.loop(loopCtx)
	}()
	return sv
}

// hint is the capacity to encode the next state into: the last one's size
// and a little more, as states grow slowly.
func (sv *saver) hint() int {
	n := int(sv.lastSize.Load())
	return n + n/16 + 4096
}

// encode encodes the state for a save and remembers its size; locked is
// how long it held the cycle lock.
func (sv *saver) encode() (data []byte, locked time.Duration) {
	data, locked = sv.m.encodeLiveTimed(sv.hint())
	sv.lastSize.Store(int64(len(data)))
	return data, locked
}

// save encodes the state and writes it: streamed into the store when it
// is a StreamSaver, else encoded whole and given to its Save. The time it
// records for a success is taken before the encoding: the state saved is
// at least that recent. The save's own cost (encoding, cycle lock,
// writing, bytes) is measured on the wall clock, not the monitor's: it is
// the machine's cost.
func (sv *saver) save(ctx context.Context) error {
	at := sv.m.clock.Now()
	began := time.Now()
	var cost saveCost
	var err error
	if ss, ok := sv.m.persist.store.(StreamSaver); ok {
		cost, err = sv.m.streamSave(ctx, at, ss)
	} else {
		var data []byte
		data, cost.locked = sv.encode()
		cost.bytes = len(data)
		err = sv.m.write(ctx, at, data)
	}
	if err == nil {
		cost.took = time.Since(began)
		sv.m.persist.saves.measured(cost)
	}
	return err
}

// streamSave saves the state encoded at at into ss as a stream, and records
// how it went, as write does for a Save.
func (m *Monitor) streamSave(ctx context.Context, at time.Time, ss StreamSaver) (saveCost, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, saveTimeout)
	defer cancel()
	src := &liveState{m: m}
	err := ss.SaveFrom(ctx, src)
	if err == nil && !src.written {
		err = errors.New("the store saved without writing the state")
	}
	m.persist.saves.done(at, err)
	if err != nil {
		m.log.Warn("cannot save the state", "err", err)
		return saveCost{}, err
	}
	m.log.Debug("state saved", "bytes", src.bytes, "duration", time.Since(start))
	return saveCost{locked: src.locked, bytes: int(src.bytes)}, nil
}

// liveState is the live state as a StreamSaver takes it: its WriteTo cuts
// the state and encodes it into the writer.
type liveState struct {
	m       *Monitor
	written bool
	locked  time.Duration // how long the cut held the cycle lock
	bytes   int64
}

// WriteTo cuts the state and encodes it into w, once.
func (s *liveState) WriteTo(w io.Writer) (int64, error) {
	if s.written {
		return 0, errors.New("availmon: the state was written already")
	}
	s.written = true
	p := &s.m.persist
	p.encoding.Lock()
	defer p.encoding.Unlock()
	e := statefile.NewStreamEncoder(w, p.streamBuf)
	s.locked = s.m.encodeLocked(e)
	n, err := e.Flush()
	s.bytes = n
	p.streamBuf = e.Bytes()
	return n, err
}

func (sv *saver) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-sv.due:
			if sv.next != nil {
				sv.next()
			}
			if ctx.Err() == nil {
				_ = sv.save(ctx)
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
	if err := sv.save(context.WithoutCancel(sv.ctx)); err == nil {
		sv.m.log.Info("state saved for the next start")
	}
}

// restore puts saved buckets back, skipping those older than the history
// keeps or from the future of now (a clock that went back).
func (h *minuteHistory) restore(ms []statefile.Minute, now time.Time) {
	cur := now.Unix() / 60
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, fm := range ms {
		if m := int64(fm.Minute); m <= cur-historyMinutes || m > cur {
			continue
		}
		slot := &h.buckets[mod(int64(fm.Minute), historyMinutes)]
		if !slot.seen || slot.minute < fm.Minute {
			*slot = minuteBucket{minute: fm.Minute, up: fm.Up, down: fm.Down,
				lastUp: fm.LastUp, lastDown: fm.LastDown, lastU: fm.LastUnavailable, seen: true}
		}
	}
}

// A save encodes the live state straight into the store's writer (a
// StreamSaver's) or the buffer it gives Save: no copy of every app's
// history is taken first. At 10,000 apps with full histories
// that copy would be a 56 MB arena of history.Check plus the encoding grown by
// doubling, every save interval: the largest burst of live heap of the
// binary, which the garbage collector's heap goal would double again.

// encodeLive returns the state a save writes, encoded into a buffer of
// capacity hint (the size of the last save, so that it does not grow by
// doubling). The state is the one between two cycles: a save that falls due
// during a cycle waits for its end. It holds cycleMu only to cut the state
// (savecut.go) and encode its small parts; the apps are encoded after,
// while cycles go on. Requests never take cycleMu: they only wait on one
// app's history lock for the microseconds its checks take to encode.
func (m *Monitor) encodeLive(hint int) []byte {
	data, _ := m.encodeLiveTimed(hint)
	return data
}

// encodeLiveTimed is encodeLive that also reports how long it held the
// cycle lock, the time a cycle due meanwhile waited.
func (m *Monitor) encodeLiveTimed(hint int) ([]byte, time.Duration) {
	// One encoding at a time: the days of a cut are the cut's until its
	// save has taken them.
	m.persist.encoding.Lock()
	defer m.persist.encoding.Unlock()
	e := statefile.NewEncoder(make([]byte, 0, hint))
	locked := m.encodeLocked(e)
	return e.Bytes(), locked
}

// encodeLocked encodes the live state into e, as encodeLive does, and
// returns how long it held the cycle lock. The caller holds
// persist.encoding.
func (m *Monitor) encodeLocked(e *statefile.Encoder) time.Duration {
	m.cycleMu.Lock()
	lockedAt := time.Now()
	c := m.cut(e, m.persist.lastCut)
	m.persist.lastCut = c
	locked := time.Since(lockedAt)
	m.cycleMu.Unlock()
	m.encodeCut(e, c)
	// Kept for its slices only: not the Book or plan of an old cycle.
	c.book, c.plan = nil, nil
	return locked
}

// encodeCut encodes the rest of the state after cut c, without cycleMu.
// The ledger's history, most of a large state, is encoded a record at a
// time: a stream encoder writes each out before the next.
func (m *Monitor) encodeCut(e *statefile.Encoder, c *saveCut) {
	c.encodeApps(e)
	e.LedgerPieces(func(emit func([]byte) error) error {
		var err error
		c.ledgerBuf, err = c.book.EachBinary(c.ledgerBuf, emit)
		return err
	})
	var replay []hmac.ReplayEntry
	if k, ok := m.api.auth.(ReplayKeeper); ok {
		replay = k.ReplayEntries()
	}
	e.Replay(replay)
	mt := m.maint.saved()
	e.Maintenance(&mt)
}

// saveCut is the state of a save as its cut took it, under cycleMu, for
// encodeApps to encode after (savecut.go).
type saveCut struct {
	plan  *plan
	st    *cycleState
	marks []history.Mark // where each app's history stood
	lasts []appState     // each app's last state
	errs  []string       // and its error text, shared (cycleState.setErr)
	// scratch holds the chunk of 24-hour windows being encoded.
	scratch history.AppDays
	// ledgerBuf holds the ledger record being encoded.
	ledgerBuf []byte
	// The ledger's history (90 days and more) is encoded from a Book,
	// which shares the records' bytes and stays as it is while cycles go
	// on: under the lock only a view per entity is taken.
	book *ledger.Book
}

// cut encodes what comes before the apps, whose size does not grow with
// them (the minute buckets, the system's and the locations' windows), and
// takes the apps' state a few words an app, into the slices of the last
// cut (nil for none) so that a save allocates little but its encoding. It
// runs under cycleMu.
func (m *Monitor) cut(e *statefile.Encoder, last *saveCut) *saveCut {
	st := m.state
	var iv *statefile.Interval
	if v := m.interval.Load(); v.runtime {
		iv = &statefile.Interval{D: v.d, Text: v.text}
	}
	e.Header(m.clock.Now(), iv)
	m.hist.encodeSeen(e)
	sys := history.FileDay(&st.sysDay)
	e.Day(&sys)
	e.Locations(len(m.plan.locations))
	for i, l := range m.plan.locations {
		e.Location(l.Name)
		d := history.FileDay(&st.locDay[i])
		e.Day(&d)
	}
	c := &saveCut{plan: m.plan, st: st}
	if last != nil {
		c.marks, c.lasts, c.scratch, c.ledgerBuf = last.marks[:0], last.lasts[:0], last.scratch, last.ledgerBuf
	}
	c.lasts = append(c.lasts, st.apps...)
	c.errs = st.shareErrs()
	for _, h := range st.history {
		c.marks = append(c.marks, h.Mark())
	}
	st.days.begin(st.appDay)
	c.book = m.ledger.Book(m.clock.Now())
	return c
}

// encodeApps encodes the apps as the cut took them, chunk by chunk of
// their 24-hour windows, while cycles go on.
func (c *saveCut) encodeApps(e *statefile.Encoder) {
	e.Apps(len(c.plan.apps))
	for k := range c.st.days.chunks {
		days := c.st.days.take(c.st.appDay, c.scratch, k)
		for j := range days.Len() {
			i := k*dayChunkApps + j
			a := &c.plan.apps[i]
			e.App(a.Name, a.Location)
			last := lastToFile(&c.lasts[i], c.errs[i])
			c.st.history[i].EncodeMarked(e, &last, c.marks[i], c.st.rts)
			day := days.At(j)
			day.Encode(e)
		}
		c.scratch = days
	}
}

// encodeSeen encodes the buckets that hold an observation, in slot order.
func (h *minuteHistory) encodeSeen(e *statefile.Encoder) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	n := 0
	for i := range h.buckets {
		if h.buckets[i].seen {
			n++
		}
	}
	e.Minutes(n)
	for i := range h.buckets {
		if b := &h.buckets[i]; b.seen {
			e.Minute(&statefile.Minute{Minute: b.minute, Up: b.up, Down: b.down,
				LastUp: b.lastUp, LastDown: b.lastDown, LastUnavailable: b.lastU})
		}
	}
}

// saveRecord is what a Monitor knows of its state saves, for /metrics
// (promexport.SaveCollector) and the storage member of /api/status. A
// failing save is otherwise only a warning in the log, and the state a
// restart would find grows older unseen. Safe for concurrent use.
type saveRecord struct {
	mu          sync.Mutex
	lastSuccess time.Time
	lastErr     string // the last save's error; "" once one succeeded
	consecutive int    // failures since the last success
	failures    uint64 // every failure since New
	last        saveCost
}

// saveCost is what the last successful save cost: a large state's save
// must neither take long nor hold the cycles off.
type saveCost struct {
	took   time.Duration // encoding and writing
	locked time.Duration // of which the cycle lock was held
	bytes  int
}

// measured records the cost of the last successful save.
func (r *saveRecord) measured(c saveCost) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = c
}

// done records the outcome of a save that ended at at.
func (r *saveRecord) done(at time.Time, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		r.lastSuccess, r.lastErr, r.consecutive = at, "", 0
		return
	}
	r.lastErr = errtext.Truncate(err.Error(), maxErrorText)
	r.consecutive++
	r.failures++
}

func (r *saveRecord) promStatus() promexport.SaveStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return promexport.SaveStatus{LastSuccess: r.lastSuccess, Failures: r.failures,
		LastDuration: r.last.took, LastLocked: r.last.locked, LastBytes: r.last.bytes}
}

// storageJSON is the storage member of /api/status, present when the
// monitor has a Store.
type storageJSON struct {
	// LastSave is null before the first successful save.
	LastSave jsontime.Time `json:"last_save"`
	// LastSaveError is null while the last save succeeded (or none ended).
	LastSaveError *string `json:"last_save_error"`
	// ConsecutiveFailures counts the saves that failed since the last that
	// succeeded; while it is not 0, system_status is at best degraded.
	ConsecutiveFailures int `json:"consecutive_failures"`
}

// storageStatus is the storage member of /api/status; nil without a Store.
func (m *Monitor) storageStatus() *storageJSON {
	if m.persist.store == nil {
		return nil
	}
	r := &m.persist.saves
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &storageJSON{LastSave: jsontime.Time(r.lastSuccess), ConsecutiveFailures: r.consecutive}
	if r.lastErr != "" {
		e := r.lastErr
		s.LastSaveError = &e
	}
	return s
}

// A save cuts the state between two cycles, under the cycle lock, and
// encodes it after letting the lock go (below), so that a cycle never
// waits for the encoding. What the cut takes is small and fixed per app;
// the parts that cycles change in place are kept as they were at the cut
// without being copied whole:
//
//   - each app's recent checks: a history.Mark (two words), so that the
//     encoding leaves out the checks added since; a check the history
//     dropped since, its oldest, is not saved (docs/decisions.md, Storage);
//   - each app's last state: copied (40 bytes);
//   - each app's 24-hour window (368 bytes, 37 MB at 100,000 apps): copied
//     on write, a chunk of dayChunkApps apps at a time, by whichever comes
//     first to the chunk, the save to encode it or a writer to change it.

// dayChunkApps is how many apps' windows a dayCut copies at a time: 94 KB,
// a few microseconds of copying for whoever comes first.
const dayChunkApps = 256

// dayCut keeps the 24-hour windows of a cycleState's apps as they were at a
// save's cut until the save has encoded them. Every change to an app's
// window goes through cycleState.editDay, under cycleMu.
type dayCut struct {
	chunks []dayChunk
}

type dayChunk struct {
	// pending is set at the cut and cleared by whoever copies the chunk
	// first: while it is set the windows of the chunk are still those of
	// the cut.
	pending atomic.Bool
	mu      sync.Mutex
	saved   history.AppDays // the cut's windows, when a writer came first
}

// begin marks every chunk of days as the cut's. It runs under cycleMu.
func (c *dayCut) begin(days history.AppDays) {
	if n := (days.Len() + dayChunkApps - 1) / dayChunkApps; len(c.chunks) != n {
		c.chunks = make([]dayChunk, n)
	}
	for i := range c.chunks {
		c.chunks[i].pending.Store(true)
	}
}

// chunkOf is the span of days chunk k holds.
func chunkOf(days history.AppDays, k int) history.AppDays {
	return days.Slice(k*dayChunkApps, min((k+1)*dayChunkApps, days.Len()))
}

// beforeWrite keeps the cut's windows of app i's chunk, if the save has not
// taken them yet, before a writer changes the window. It runs under cycleMu.
func (c *dayCut) beforeWrite(days history.AppDays, i int) {
	k := i / dayChunkApps
	if k >= len(c.chunks) || !c.chunks[k].pending.Load() {
		return
	}
	ch := &c.chunks[k]
	ch.mu.Lock()
	if ch.pending.Load() {
		ch.saved = history.AppendAppDays(history.AppDays{}, chunkOf(days, k))
		ch.pending.Store(false)
	}
	ch.mu.Unlock()
}

// take returns the cut's windows of chunk k, copied into scratch when no
// writer copied them first, and releases the chunk to writers. Only the
// save calls it, once per chunk, after the cut.
func (c *dayCut) take(days, scratch history.AppDays, k int) history.AppDays {
	ch := &c.chunks[k]
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.pending.Load() {
		// Copied before writers are let in: one that finds the chunk no
		// longer pending writes at once.
		out := history.AppendAppDays(scratch.Truncate(), chunkOf(days, k))
		ch.pending.Store(false)
		return out
	}
	saved := ch.saved
	ch.saved = history.AppDays{}
	return saved
}

// editDay changes app i's window by f: the cut of a save that has not
// encoded it yet keeps it first. It runs under cycleMu. f changes st's
// own copy of the window: a local one, handed to a function value, would
// be moved to the heap, an allocation an app a cycle.
func (st *cycleState) editDay(i int, f func(*history.AppDay)) {
	w := &st.dayEdit
	*w = st.appDay.At(i)
	f(w)
	st.days.beforeWrite(st.appDay, i)
	st.appDay.Put(i, w)
	*w = history.AppDay{} // keeps no odd part alive
}
