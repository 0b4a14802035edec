package availmon

import (
	"bytes"
	"context"
	"encoding/binary"
)

// A plain copy of the state, encoded afterwards: the simplest way to save,
// plainly right, and so the reference the live encoding (persist.go)
// must match byte for byte.

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
	arena := make([]checkEntry, 0, len(m.plan.apps)*m.cfg.historySize)
	for i, a := range m.plan.apps {
		from := len(arena)
		arena = st.history[i].appendTo(arena)
		s.apps[i] = savedApp{name: a.Name, location: a.Location, state: keptState(st.apps[i]),
			history: arena[from:len(arena):len(arena)], day: *st.appDay[i].window()}
	}
	if l := m.ledger.AppendBinary(nil); !bytes.Equal(l, emptyLedger) {
		s.ledger = l
	}
	m.cycleMu.Unlock()
	if k, ok := m.api.auth.(ReplayKeeper); ok {
		s.replay = k.ReplayEntries()
	}
	return s
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

// save encodes the state and writes it to the store, as a Run's saver does.
func (m *Monitor) save(ctx context.Context) error {
	return m.write(ctx, m.clock.Now(), m.encodeLive(0))
}

// keptState is a as a state file keeps it: without the damper, the
// maintenance flag or the clock's location.
func keptState(a appState) appState {
	if !a.checked() {
		return unchecked()
	}
	k := checkedState(a.status(), a.lastCheck, a.rt)
	k.err = a.err
	return k
}

// encodeState writes s compactly: varints, times as deltas. A running
// monitor encodes its live state the same way without taking a copy first
// (encodeLive, persist.go); the encoder's parts below are shared so that
// the two cannot drift apart.
func encodeState(s *savedState) []byte {
	var e encoder
	e.header(s.savedAt, s.interval)
	e.uvarint(uint64(len(s.minutes)))
	for i := range s.minutes {
		e.minute(&s.minutes[i])
	}
	e.day(&s.sysDay)
	e.uvarint(uint64(len(s.locs)))
	for i := range s.locs {
		e.str(s.locs[i].name)
		e.day(&s.locs[i].day)
	}
	e.uvarint(uint64(len(s.apps)))
	for i := range s.apps {
		e.app(&s.apps[i])
	}
	e.ledgerSection(s.ledger)
	e.replay(s.replay)
	e.maintenance(&s.maint)
	return e.b
}

// app encodes a copy's app as appHistory.encode does the live one.
func (e *encoder) app(a *savedApp) {
	e.str(a.name)
	e.str(a.location)
	e.beginChecks(len(a.history), 0)
	textRef := make(map[string]uint64)
	for i := range a.history {
		c := &a.history[i]
		var ref uint64
		if c.err != "" {
			if ref = textRef[c.err]; ref == 0 {
				e.texts = append(e.texts, c.err)
				ref = uint64(len(e.texts))
				textRef[c.err] = ref
			}
		}
		e.check(checkMillis(c.at), checkMicros(c.rt), c.status, ref)
	}
	e.appState(&a.state)
	e.errTexts()
	e.day(&a.day)
}

// ledgerSection writes a copy's ledger section (its bytes as decoded).
func (e *encoder) ledgerSection(raw []byte) {
	if raw == nil {
		raw = emptyLedger
	}
	e.b = binary.LittleEndian.AppendUint64(e.b, uint64(len(raw)))
	e.b = append(e.b, raw...)
}
