package availmon

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/timeline"
)

// The monitor's record of availability over time (internal/ledger) is fed
// by every cycle's commit, marked with the maintenance windows, handed to
// readers in each snapshot as a Book, and saved with the state. Everything
// here runs under cycleMu.

// initLedger makes the ledger of New's plan p.
func (m *Monitor) initLedger(opts *Options, p *plan) {
	m.cfg.timeZone = cmp.Or(opts.TimeZone, time.UTC)
	m.ledger = ledger.New(ledger.Options{Retention: opts.Retention})
	m.ledger.SetLayout(m.run.started, layoutOf(p), m.ledgerWindows(p))
}

// layoutOf is the fleet of plan p as the ledger keeps it.
func layoutOf(p *plan) ledger.Layout {
	lay := ledger.Layout{
		Apps:      make([]ledger.AppRef, len(p.apps)),
		Locations: make([]string, len(p.locations)),
		Services:  make([]ledger.ServiceRef, len(p.ctl.services)),
	}
	for i, a := range p.apps {
		lay.Apps[i] = ledger.AppRef{Name: a.Name, Location: a.Location}
	}
	for i, l := range p.locations {
		lay.Locations[i] = l.Name
	}
	for i, s := range p.ctl.services {
		var apps []int
		for _, idx := range s.locApps {
			apps = append(apps, idx...)
		}
		slices.Sort(apps)
		lay.Services[i] = ledger.ServiceRef{Name: s.Name, Apps: apps}
	}
	return lay
}

// ledgerWindows are the maintenance windows as the ledger marks them, the
// apps they cover taken from plan p when the ledger asks.
func (m *Monitor) ledgerWindows(p *plan) []ledger.Window {
	ws := m.maint.list()
	out := make([]ledger.Window, len(ws))
	for i, w := range ws {
		out[i] = w.ledgerWindow(p)
	}
	return out
}

// ledgerWindow is the window as the ledger marks it, over the apps of p.
func (w *maintWindow) ledgerWindow(p *plan) ledger.Window {
	lw := ledger.Window{Key: w.ledgerKey(), Apps: func() []int {
		in := make([]bool, len(p.apps))
		w.mark(p, in)
		var idx []int
		for j, ok := range in {
			if ok {
				idx = append(idx, j)
			}
		}
		return idx
	}}
	if w.sched == nil {
		lw.From, lw.To = w.From, w.To
	} else {
		lw.Next = w.next
	}
	return lw
}

// ledgerKey names the window and its definition: a configuration window
// reloaded unchanged keeps its key, a changed one gets another.
func (w *maintWindow) ledgerKey() string {
	var b strings.Builder
	for _, s := range []string{w.ID, w.App, w.Location, w.Service, w.Cron, w.TimeZone} {
		b.WriteString(strconv.Quote(s))
	}
	for _, k := range slices.Sorted(maps.Keys(w.Labels)) {
		b.WriteString(strconv.Quote(k) + "=" + strconv.Quote(w.Labels[k]))
	}
	for _, n := range []int64{w.From.UnixNano(), w.To.UnixNano(), int64(w.Duration)} {
		b.WriteString(" " + strconv.FormatInt(n, 10))
	}
	return b.String()
}

// feedLedger records a cycle in the ledger: each app's raw result at its
// check's time, its location's and its services' states at end. It
// returns evs with an event for every outage that began or ended.
func (m *Monitor) feedLedger(p *plan, out *cycleResult, end time.Time, inMaint []bool, evs []Event) []Event {
	l := m.ledger
	hold := 2 * m.Interval()
	ws, deleted := m.ledgerWindows(p), m.maint.takeDeleted(p)
	if k := windowsKey(ws); k != m.winKey || len(deleted) > 0 {
		m.winKey = k
		m.pastChanged()
	}
	l.Sync(end, ws, deleted)
	st := m.state
	for i := range p.apps {
		l.Check(i, st.apps[i].lastCheckTime(), timelineState(out.result(p, i).Status), hold, inMaint != nil && inMaint[i])
	}
	svc := make([]timeline.State, len(p.ctl.services))
	for i := range p.ctl.services {
		v := p.ctl.services[i].evaluate(func(ai int) Status {
			if st.apps[ai].maint() {
				return StatusUp
			}
			return st.apps[ai].status()
		})
		svc[i] = serviceTimelineState(v.state)
	}
	for _, c := range l.EndCycle(end, hold, svc, nil) {
		evs = append(evs, outageEvent(c))
	}
	return evs
}

func timelineState(s Status) timeline.State {
	switch s {
	case StatusUp:
		return timeline.Up
	case StatusDown:
		return timeline.Down
	}
	return timeline.Unknown
}

// serviceTimelineState is a service's state as its record keeps it: up
// while the quorum holds (degraded included), down below it.
func serviceTimelineState(s string) timeline.State {
	switch s {
	case ServiceUp, ServiceDegraded:
		return timeline.Up
	case ServiceDown:
		return timeline.Down
	}
	return timeline.Unknown
}

// outageEvent is the event that announces c.
func outageEvent(c ledger.Change) Event {
	ev := Event{Type: EventOutageStart, Time: c.Start,
		Outage: &OutageEvent{Kind: c.Kind.String(), Name: c.Name, Start: c.Start, Full: c.Full}}
	if !c.End.IsZero() {
		ev.Type, ev.Time, ev.Outage.End = EventOutageEnd, c.End, c.End
	}
	switch c.Kind {
	case ledger.App:
		ev.App, ev.Location = c.Name, c.Location
	case ledger.Location:
		ev.Location = c.Name
	}
	return ev
}

// takeDeleted returns the windows deleted through the API since the last
// call, and when each went: the ledger unmarks their time from then, not
// from the next cycle, and marks the time before it of one no cycle saw.
func (mt *maintenance) takeDeleted(p *plan) []ledger.Deleted {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	out := make([]ledger.Deleted, len(mt.deleted))
	for i, d := range mt.deleted {
		out[i] = ledger.Deleted{Window: d.w.ledgerWindow(p), At: d.at}
	}
	mt.deleted = nil
	return out
}

// restoreLedger puts the saved ledger in place (statefile.Decode read it).
func (m *Monitor) restoreLedger(saved *ledger.Saved, now time.Time) {
	m.ledger.Restore(saved, now)
	m.pastChanged()
	m.log.Info("restored the record of availability over time", "records", saved.Len())
}

// pastChanged tells the kept reports that the ledger's past changed. It
// runs under cycleMu, after the change and before the next publish.
func (m *Monitor) pastChanged() { m.pastGen++ }

// windowsKey is the maintenance windows' keys in order: when they differ
// from the last cycle's, Sync marks or unmarks the past.
func windowsKey(ws []ledger.Window) string {
	keys := make([]string, len(ws))
	for i, w := range ws {
		keys[i] = w.Key
	}
	slices.Sort(keys)
	return strings.Join(keys, "\x00")
}
