package availmon

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/availmon/availmon/internal/history"
)

// appState is what the last check of one app found. There is one per app
// in the cycle state and one in every snapshot (two are often alive), so it
// is packed into 40 bytes: statuses as codes, the time as unix nanoseconds,
// the damper's fields and the flags in the last word.
// Its error text is kept apart (cycleState.errs): without it an appState
// holds no pointer, and the collector scans neither the cycle's apps nor a
// snapshot's.
type appState struct {
	lastCheck int64 // unix nanoseconds; see lastCheckTime
	rt        time.Duration
	run       int32      // the damper's run (damping, below)
	cand      statusCode // the damper's candidate
	code      statusCode // the shown status
	flags     stateFlags
}

type stateFlags uint8

const (
	flagChecked stateFlags = 1 << iota
	flagMaint              // in a maintenance window when checked
	// The last check's time as the clock gave it: in UTC rather than in
	// time.Local (a restored state keeps neither, and is shown in Local,
	// as time.Unix makes it), or the zero Time, which unix nanoseconds
	// cannot hold and the API shows as null.
	flagUTC
	flagZeroTime
)

// unchecked is the state of an app no cycle has checked.
func unchecked() appState { return appState{code: codeUnavailable} }

// checkedState is the state of an app checked at unix nanosecond at, as a
// state file keeps it: without the clock's location.
func checkedState(s Status, at int64, rt time.Duration) appState {
	return appState{lastCheck: at, rt: rt, code: codeOf(s), flags: flagChecked}
}

func (a *appState) status() Status     { return a.code.status() }
func (a *appState) checked() bool      { return a.flags&flagChecked != 0 }
func (a *appState) maint() bool        { return a.flags&flagMaint != 0 }
func (a *appState) setStatus(s Status) { a.code = codeOf(s) }

func (a *appState) setMaint(on bool) {
	a.flags &^= flagMaint
	if on {
		a.flags |= flagMaint
	}
}

// setChecked marks the app checked at t. The times a monitor meets fit unix
// nanoseconds (years 1678 to 2262), as the history and the state file
// already assume; t's monotonic reading is dropped, as nothing compares it.
func (a *appState) setChecked(t time.Time) {
	a.lastCheck = t.UnixNano()
	a.flags &^= flagUTC | flagZeroTime
	a.flags |= flagChecked
	switch {
	case t.IsZero():
		a.flags |= flagZeroTime
	case t.Location() == time.UTC:
		a.flags |= flagUTC
	}
}

// lastCheckTime is when the app was last checked, the zero Time if never.
func (a *appState) lastCheckTime() time.Time {
	if !a.checked() || a.flags&flagZeroTime != 0 {
		return time.Time{}
	}
	return unixTime(a.lastCheck, a.flags&flagUTC != 0)
}

// redate moves the time of the last check by step (followClock).
func (a *appState) redate(step time.Duration) {
	if a.checked() && a.flags&flagZeroTime == 0 {
		a.lastCheck += int64(step)
	}
}

// unixTime is unix nanosecond ns in UTC, or else in time.Local: what is
// kept of a clock's time where a time.Time would take three words.
func unixTime(ns int64, utc bool) time.Time {
	t := time.Unix(0, ns)
	if utc {
		t = t.UTC()
	}
	return t
}

func (a *appState) damper() damper { return damper{cand: a.cand, run: a.run} }

func (a *appState) setDamper(d damper) { a.cand, a.run = d.cand, d.run }

// statusCode is a Status in a byte, for what is kept per app and in the
// event log. Only the three statuses reach an app's state: a cycle makes
// an invalid result of a Source unavailable (checkBatch), discovery and the
// state file make only the three. codeOf maps anything else to
// unavailable, as the history and the state file do; exactCode tells.
type statusCode uint8

const (
	codeNone statusCode = iota // no status: a damper without a run
	codeUp
	codeDown
	codeUnavailable
)

var codeStatuses = [...]Status{codeNone: "", codeUp: StatusUp, codeDown: StatusDown, codeUnavailable: StatusUnavailable}

func codeOf(s Status) statusCode {
	if c, ok := exactCode(s); ok {
		return c
	}
	return codeUnavailable
}

// exactCode is s's code; ok is false for a Status outside the three and
// "", which no cycle makes, but which an Event can hold.
func exactCode(s Status) (c statusCode, ok bool) {
	switch s {
	case "":
		return codeNone, true
	case StatusUp:
		return codeUp, true
	case StatusDown:
		return codeDown, true
	case StatusUnavailable:
		return codeUnavailable, true
	}
	return codeNone, false
}

func (c statusCode) status() Status { return codeStatuses[c] }

// cycleState is the monitor's mutable memory across cycles. Only commit
// writes it, under cycleMu; handlers read snapshots and the two histories,
// which carry their own locks.
type cycleState struct {
	apps         []appState
	errs         []string           // each app's last error text; see setErr
	errsOwn      bool               // errs is not shared with a snapshot or a save's cut
	history      []*history.Checks  // pointers: a reconfiguration hands them on
	rts          *history.SharedRTs // the response times the histories share, handed on with them
	appDay       history.AppDays    // changed through editDay (persist.go)
	days         dayCut             // appDay as a save's cut holds it
	dayEdit      history.AppDay     // the window editDay changes
	locDay       []history.Day
	sysDay       history.Day
	backends     []bool // answered in the last cycle that tried it
	backendSeen  []bool
	cycles       int
	lastCycle    time.Time
	lastDuration time.Duration
}

func newCycleState(p *plan) *cycleState {
	st := &cycleState{
		apps:        make([]appState, len(p.apps)),
		errs:        make([]string, len(p.apps)),
		errsOwn:     true,
		history:     make([]*history.Checks, len(p.apps)),
		rts:         new(history.SharedRTs),
		appDay:      history.MakeAppDays(len(p.apps)),
		locDay:      make([]history.Day, len(p.locations)),
		backends:    make([]bool, len(p.backends)),
		backendSeen: make([]bool, len(p.backends)),
	}
	for i := range st.apps {
		st.apps[i] = unchecked()
		st.history[i] = new(history.Checks)
	}
	return st
}

// setErr makes s app i's error text. Snapshots and a save's cut share
// errs as shareErrs gave it, never changed: a change copies it first, once
// until it is shared again, which a cycle whose texts stay the same never
// does. It runs under cycleMu.
func (st *cycleState) setErr(i int, s string) {
	if st.errs[i] == s {
		return
	}
	if !st.errsOwn {
		st.errs = slices.Clone(st.errs)
		st.errsOwn = true
	}
	st.errs[i] = s
}

// shareErrs is errs for a reader that keeps it. It runs under cycleMu.
func (st *cycleState) shareErrs() []string {
	st.errsOwn = false
	return st.errs
}

// uptime is 100*up/(up+down), or nil when no check got an answer.
func uptime(c history.Counts) *float64 { return percent(c.Up, c.Up+c.Down) }

// avgResponse is the mean response time of the checks that got an answer
// and measured one.
func avgResponse(c history.Counts) *float64 {
	if c.RTN == 0 {
		return nil
	}
	v := roundTo(c.RTSum/float64(c.RTN), 6)
	return &v
}

// percent is 100*part/whole rounded to two decimals, nil when whole is 0.
func percent(part, whole int64) *float64 {
	if whole == 0 {
		return nil
	}
	v := roundTo(100*float64(part)/float64(whole), 2)
	return &v
}

// mod is the non-negative remainder, so that times before 1970 from a test
// clock cannot index out of range.
func mod(a, n int64) int {
	return int((a%n + n) % n)
}

func roundTo(v float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(v*p) / p
}

// minuteHistory aggregates every cycle into per-minute buckets for the last
// 30 days (plus an hour, so that a 30d/1h answer is always whole). Coarser
// resolutions are derived from it; nothing per check is kept.
type minuteHistory struct {
	mu      sync.RWMutex
	buckets []minuteBucket
}

// minuteBucket is one minute of the history, 28 bytes: there are 43,260.
type minuteBucket struct {
	minute int32 // unix minutes; which minute the slot holds (up to the year 6053)
	// App checks in the minute, saturating: 4.29e9 is 71 million apps
	// checked every second.
	up, down                uint32
	lastUp, lastDown, lastU int32 // app counts of the minute's last cycle
	seen                    bool
}

const historyMinutes = 30*24*60 + 60

// fitsMinute reports whether unix minute m fits a bucket. A minute that
// does not (a clock past the year 6053, or as far before 1970) is not
// kept.
func fitsMinute(m int64) bool { return m >= math.MinInt32 && m <= math.MaxInt32 }

// addCount is c+n, saturating.
func addCount(c uint32, n int) uint32 {
	return uint32(min(uint64(c)+uint64(max(n, 0)), math.MaxUint32))
}

func newMinuteHistory() *minuteHistory {
	return &minuteHistory{buckets: make([]minuteBucket, historyMinutes)}
}

func (h *minuteHistory) add(t time.Time, up, down, unavailable int) {
	min := t.Unix() / 60
	if !fitsMinute(min) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	b := &h.buckets[mod(min, historyMinutes)]
	if !b.seen || int64(b.minute) != min {
		*b = minuteBucket{minute: int32(min), seen: true}
	}
	b.up = addCount(b.up, up)
	b.down = addCount(b.down, down)
	b.lastUp, b.lastDown, b.lastU = int32(up), int32(down), int32(unavailable)
}

// redate moves the buckets' minutes by step, to the nearest minute, as the
// windows' hours move (followClock): the ring turns by as many slots.
func (h *minuteHistory) redate(step time.Duration) {
	k := int64(step.Round(time.Minute) / time.Minute)
	if k == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	// Turning the ring right by r is three reversals, in place.
	r := mod(k, historyMinutes)
	slices.Reverse(h.buckets)
	slices.Reverse(h.buckets[:r])
	slices.Reverse(h.buckets[r:])
	for i := range h.buckets {
		b := &h.buckets[i]
		if m := int64(b.minute) + k; b.seen && fitsMinute(m) {
			b.minute = int32(m)
		} else {
			*b = minuteBucket{}
		}
	}
}

// dataPoint is one bucket of the status history.
type dataPoint struct {
	start            time.Time
	availability     *float64
	up, down, unavai int
}

// points returns period/res buckets aligned to res in UTC, oldest first;
// the last one holds now. A bucket's availability is over every app check
// in it; its counts are those of the last cycle in it.
func (h *minuteHistory) points(now time.Time, period, res time.Duration) []dataPoint {
	n := int(period / res)
	resMin := int64(res / time.Minute)
	lastStart := now.Unix() / 60 / resMin * resMin
	out := make([]dataPoint, n)
	h.mu.RLock()
	defer h.mu.RUnlock()
	for i := range out {
		start := lastStart - int64(n-1-i)*resMin
		var up, down int64
		var last *minuteBucket
		for m := start; m < start+resMin; m++ {
			b := &h.buckets[mod(m, historyMinutes)]
			if !b.seen || int64(b.minute) != m {
				continue
			}
			up += int64(b.up)
			down += int64(b.down)
			last = b
		}
		p := dataPoint{start: time.Unix(start*60, 0).UTC()}
		if last != nil {
			p.availability = percent(up, up+down)
			p.up, p.down, p.unavai = int(last.lastUp), int(last.lastDown), int(last.lastU)
		}
		out[i] = p
	}
	return out
}

// Flap damping: an app's shown state moves to a new value only after that
// value has come back from enough consecutive checks. Every raw check still
// goes into the app's history and the per-check counters; only the shown
// state, the state counts and the events follow the accepted state.

// thresholds are the consecutive checks needed to accept a change: fail
// for down and unavailable, success for up.
type thresholds struct{ fail, success int }

func (t thresholds) need(s Status) int {
	if s == StatusUp {
		return t.success
	}
	return t.fail
}

// damper remembers the run of raw results that differ from the accepted
// state. appState keeps its fields, packed with its own.
type damper struct {
	run  int32      // consecutive checks that returned cand
	cand statusCode // the state the run is of
}

// step folds one raw result into the damper and returns the state to show.
// An app never checked before takes its first result at once: there is no
// state to hold on to. A result equal to the accepted state ends any run.
func (d *damper) step(accepted Status, checked bool, raw Status, th thresholds) Status {
	if !checked || raw == accepted {
		*d = damper{}
		return raw
	}
	switch c := codeOf(raw); {
	case c != d.cand:
		d.cand, d.run = c, 1
	case d.run < math.MaxInt32: // it stops there, 68 years of checks a second on
		d.run++
	}
	if int(d.run) >= th.need(raw) {
		*d = damper{}
		return raw
	}
	return accepted
}

// appThresholds resolves every app's thresholds from its own and the
// Options' values; zero means 1.
func appThresholds(apps []App, o *Options) []thresholds {
	def := thresholds{fail: max(1, o.FailThreshold), success: max(1, o.SuccessThreshold)}
	out := make([]thresholds, len(apps))
	for i, a := range apps {
		out[i] = def
		if a.FailThreshold > 0 {
			out[i].fail = a.FailThreshold
		}
		if a.SuccessThreshold > 0 {
			out[i].success = a.SuccessThreshold
		}
	}
	return out
}

// histStatus is s as a history keeps it.
func histStatus(s Status) history.Status {
	switch s {
	case StatusUp:
		return history.Up
	case StatusDown:
		return history.Down
	}
	return history.Unavailable
}

// statusOfHist is the status a history's s stands for.
func statusOfHist(s history.Status) Status {
	switch s {
	case history.Up:
		return StatusUp
	case history.Down:
		return StatusDown
	}
	return StatusUnavailable
}
