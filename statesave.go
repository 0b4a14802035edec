package availmon

import "github.com/availmon/availmon/hmac"

// A save encodes the live state straight into the buffer it writes: no copy
// of every app's history is taken first. At 10,000 apps with full histories
// that copy would be a 56 MB arena of checkEntry plus the encoding grown by
// doubling, every save interval: the largest burst of live heap of the
// binary, which the garbage collector's heap goal would double again.

// encodeLive returns the state a save writes, encoded into a buffer of
// capacity hint (the size of the last save, so that it does not grow by
// doubling). It holds cycleMu while it encodes, so the state is the one between two cycles: a save that
// falls due during a cycle waits for its end. Requests never take
// cycleMu: they only wait on one app's history lock for the microseconds
// its checks take to encode.
func (m *Monitor) encodeLive(hint int) []byte {
	e := encoder{b: make([]byte, 0, hint)}
	m.cycleMu.Lock()
	st := m.state
	var iv *intervalSetting
	if v := m.interval.Load(); v.runtime {
		iv = v
	}
	e.header(m.clock.Now(), iv)
	m.hist.encodeSeen(&e)
	e.day(&st.sysDay)
	e.uvarint(uint64(len(m.plan.locations)))
	for i, l := range m.plan.locations {
		e.str(l.Name)
		e.day(&st.locDay[i])
	}
	e.uvarint(uint64(len(m.plan.apps)))
	for i := range m.plan.apps {
		a := &m.plan.apps[i]
		e.str(a.Name)
		e.str(a.Location)
		st.history[i].encode(&e, &st.apps[i])
		st.appDay[i].encode(&e)
	}
	e.liveLedger(m.ledger)
	m.cycleMu.Unlock()
	var replay []hmac.ReplayEntry
	if k, ok := m.auth.(ReplayKeeper); ok {
		replay = k.ReplayEntries()
	}
	e.replay(replay)
	mt := m.maint.saved()
	e.maintenance(&mt)
	return e.b
}

// encodeSeen encodes the buckets that hold an observation, in slot order.
func (h *minuteHistory) encodeSeen(e *encoder) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	n := 0
	for i := range h.buckets {
		if h.buckets[i].seen {
			n++
		}
	}
	e.uvarint(uint64(n))
	for i := range h.buckets {
		if h.buckets[i].seen {
			e.minute(&h.buckets[i])
		}
	}
}

// encode encodes the checks, oldest first, the app's last state st and the
// table of their error texts, as encoder.app does a copy. It walks the
// checks once, straight from their encoded form: the error numbers of the
// history become the table's refs as they are first used.
func (h *appHistory) encode(e *encoder, st *appState) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e.beginChecks(h.n, len(h.errs))
	r := h.reader()
	for range h.n {
		ms, rt, s, errNum := r.next()
		e.check(ms, rt, s, e.ref(errNum, h.errs))
	}
	e.appState(st)
	e.errTexts()
}

// encode encodes w as encoder.day does w.window().
func (w *appDayWindow) encode(e *encoder) {
	n := 0
	for i := range w.slots {
		if w.counts(i).total() > 0 {
			n++
		}
	}
	e.beginDay(n)
	for i := range w.slots {
		if c := w.counts(i); c.total() > 0 {
			e.hour(w.hourAt(i), c)
		}
	}
}
