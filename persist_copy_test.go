package availmon

import (
	"bytes"
	"context"
	"time"

	"github.com/availmon/availmon/internal/history"
	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/internal/statefile"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// A plain copy of the state, encoded afterwards: the simplest way to save,
// plainly right, and so the reference the live encoding (persist.go)
// must match byte for byte.

// copyState takes what a save writes. It holds cycleMu, so the copy is of
// the state between two cycles; it only copies, and encoding happens after
// the lock is released.
func (m *Monitor) copyState() *statefile.State {
	m.cycleMu.Lock()
	st := m.state
	s := &statefile.State{
		SavedAt:   m.clock.Now(),
		Minutes:   m.hist.seen(),
		System:    history.FileDay(&st.sysDay),
		Locations: make([]statefile.Location, len(m.plan.locations)),
		Apps:      make([]statefile.App, len(m.plan.apps)),
	}
	if iv := m.interval.Load(); iv.runtime {
		s.Interval = &statefile.Interval{D: iv.d, Text: iv.text}
	}
	for i, l := range m.plan.locations {
		s.Locations[i] = statefile.Location{Name: l.Name, Day: history.FileDay(&st.locDay[i])}
	}
	for i, a := range m.plan.apps {
		day := st.appDay.At(i)
		s.Apps[i] = statefile.App{Name: a.Name, Location: a.Location, Checks: checksToFile(st.history[i].List(st.rts)),
			Last: lastToFile(&st.apps[i], st.errs[i]), Day: history.FileDay(day.Window())}
	}
	if l := m.ledger.AppendBinary(nil); !bytes.Equal(l, emptyLedger) {
		s.Ledger = l
	}
	m.cycleMu.Unlock()
	if k, ok := m.api.auth.(ReplayKeeper); ok {
		s.Replay = k.ReplayEntries()
	}
	s.Maintenance = m.maint.saved()
	return s
}

// emptyLedger is the ledger section of a ledger with no record, which a
// decoded State holds as nil.
var emptyLedger = ledger.New(ledger.Options{}).AppendBinary(nil)

func checksToFile(es []history.Check) []statefile.Check {
	out := make([]statefile.Check, len(es))
	for i, e := range es {
		out[i] = statefile.Check{At: e.At, RT: e.RT, Status: history.FileStatus(e.Status), Err: e.Err}
	}
	return out
}

// seen returns a copy of the buckets that hold an observation.
func (h *minuteHistory) seen() []statefile.Minute {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []statefile.Minute
	for _, b := range h.buckets {
		if b.seen {
			out = append(out, statefile.Minute{Minute: b.minute, Up: b.up, Down: b.down,
				LastUp: b.lastUp, LastDown: b.lastDown, LastUnavailable: b.lastU})
		}
	}
	return out
}

// save encodes the state and writes it to the store, as a Run's saver does.
func (m *Monitor) save(ctx context.Context) error {
	return m.write(ctx, m.clock.Now(), m.encodeLive(0))
}

// encodeState is statefile.Encode: the reference the live encoding must
// match byte for byte.
func encodeState(s *statefile.State) []byte { return statefile.Encode(s) }

// stateCmp compares decoded states: times by instant, response time sums
// to the microsecond the file keeps them to.
var stateCmp = cmp.Options{
	cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
	cmpopts.EquateApprox(0, 1e-6),
	cmpopts.EquateEmpty(),
	// The records are Ledger decoded, which is compared.
	cmpopts.IgnoreFields(statefile.State{}, "Records"),
}
