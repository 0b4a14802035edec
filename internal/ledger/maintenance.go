package ledger

import (
	"time"

	"github.com/availmon/availmon/timeline"
)

// Window is a maintenance window as the ledger marks it.
type Window struct {
	// Key names the window and its definition: a window whose definition
	// changes (a reload) comes with another key, and is unmarked and
	// marked again.
	Key string
	// A one-off window is [From, To), marked whole, its past included.
	From, To time.Time
	// A recurring window has Next instead: the occurrence in progress at
	// t or the next after it, the zero times when there is none. When the
	// ledger first sees it, its occurrences within the retention are
	// marked, past ones included as a one-off window's past is; each later
	// one before it begins.
	Next func(t time.Time) (start, end time.Time)
	// Apps returns the indexes of the layout's apps the window covers. A
	// location or service is in maintenance when it covers all its apps.
	Apps func() []int
}

// maxAhead bounds the occurrences a Sync marks for one window: a cron
// expression that fires every minute must not make a first Sync mark a
// day's worth.
const maxAhead = 16

// maxPast bounds the past occurrences a window's first Sync marks, the
// oldest first (a window every 15 minutes has 38,400 in 400 days), so that
// a window with a frequent cron costs a new window a bounded time.
const maxPast = 40_000

// mark is a window the ledger has marked: the occurrences whose time is
// not over, and the records it marked them in.
type mark struct {
	w    Window
	occ  []span
	ents []*entry
	seen bool
}

type span struct{ a, b time.Time }

// far is the end of the time a record holds.
var far = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// Deleted is a window deleted through the API, and when.
type Deleted struct {
	Window Window
	At     time.Time
}

// Sync marks the maintenance windows ws at now, before the checks of a
// cycle: a window new to the ledger is marked (a one-off whole, a
// recurring one from its occurrence in progress), the next occurrence of a
// recurring window ahead of its start, and a window that is gone is
// unmarked from when it went (its deletion's time, or now) to its end. A
// window deleted before any Sync saw it is marked up to its deletion all
// the same: it was in force until then.
func (l *Ledger) Sync(now time.Time, ws []Window, deleted []Deleted) {
	for _, m := range l.marks {
		m.seen = false
	}
	for _, w := range ws {
		if m := l.marks[w.Key]; m != nil {
			m.seen, m.w = true, w
			continue
		}
		l.marks[w.Key] = l.newMark(w, now)
	}
	until := map[string]time.Time{}
	for _, d := range deleted {
		if m := l.marks[d.Window.Key]; m != nil && m.seen {
			continue // posted again under the same definition
		} else if m == nil {
			m = l.newMark(d.Window, d.At)
			m.seen = false
			l.marks[d.Window.Key] = m
		}
		until[d.Window.Key] = d.At
	}
	gone := false
	for key, m := range l.marks {
		if !m.seen {
			gone = true
			if t, ok := until[key]; !ok || t.After(now) {
				until[key] = now
			}
		}
	}
	if gone {
		l.resync(now, ws, until)
	}
	for _, m := range l.marks {
		m.ahead(now)
	}
}

// newMark marks the window w, seen at t: a one-off whole, a recurring one
// its occurrences within the retention that are over by t and the one in
// progress at t (later ones are ahead's).
func (l *Ledger) newMark(w Window, t time.Time) *mark {
	m := &mark{w: w, seen: true, ents: l.covered(w)}
	if w.Next == nil {
		m.occ = []span{{w.From, w.To}}
	} else {
		m.past(t.Add(-l.retention), t)
		if a, b := w.Next(t); !a.IsZero() && a.Before(t) && b.After(a) {
			m.occ = []span{{a, b}}
		}
	}
	for _, o := range m.occ {
		m.setSpan(o.a, o.b, true)
	}
	return m
}

// resync unmarks each window that went (until holds when) from then on,
// and marks again the windows ws with the apps they cover now, and the
// time the others were in force, over the time that unmarking touched:
// windows on the same records overlap, and unmarking one unmarks them all.
func (l *Ledger) resync(now time.Time, ws []Window, until map[string]time.Time) {
	at := now
	for _, t := range until {
		if t.Before(at) {
			at = t
		}
	}
	for _, m := range l.marks {
		m.setSpan(at, far, false)
	}
	byKey := make(map[string]Window, len(ws))
	for _, w := range ws {
		byKey[w.Key] = w
	}
	for key, m := range l.marks {
		w, ok := byKey[key]
		if !ok {
			m.setSpan(at, until[key], true)
			delete(l.marks, key)
			continue
		}
		m.w = w
		m.ents = l.covered(w)
		m.setSpan(at, far, true)
	}
}

// setSpan marks (on) or unmarks the window's occurrences over [from, to)
// in its records.
func (m *mark) setSpan(from, to time.Time, on bool) {
	for _, o := range m.occ {
		a, b := o.a, o.b
		if a.Before(from) {
			a = from
		}
		if b.After(to) {
			b = to
		}
		if !a.Before(b) {
			continue
		}
		for _, e := range m.ents {
			e.rec.SetMaintenance(a, b, on)
		}
	}
}

// past marks the occurrences of a recurring window over [from, now) that
// are over by now (ahead marks the one in progress), so that time the
// monitor did not see (before it ran, a restart's gap, filled by the
// backfill) is in maintenance exactly as time it saw.
func (m *mark) past(from, now time.Time) {
	var occ []timeline.Span
	for range maxPast {
		a, b := m.w.Next(from)
		if a.IsZero() || !b.After(a) || !b.After(from) || b.After(now) {
			break
		}
		occ = append(occ, timeline.Span{From: a, To: b})
		from = b
	}
	if len(occ) == 0 {
		return
	}
	for _, e := range m.ents {
		e.rec.MarkMaintenance(occ...)
	}
}

// ahead marks the occurrences of a recurring window up to the first that
// begins after now, so that each is marked before its time is recorded
// (which costs nothing), and forgets those that are over.
func (m *mark) ahead(now time.Time) {
	keep := m.occ[:0]
	for _, o := range m.occ {
		if o.b.After(now) {
			keep = append(keep, o)
		}
	}
	m.occ = keep
	if m.w.Next == nil {
		return
	}
	from := now
	if n := len(m.occ); n > 0 {
		if m.occ[n-1].a.After(now) {
			return
		}
		from = m.occ[n-1].b
	}
	for range maxAhead {
		a, b := m.w.Next(from)
		if a.IsZero() || !b.After(a) || !b.After(from) {
			return
		}
		o := span{a, b}
		m.occ = append(m.occ, o)
		for _, e := range m.ents {
			e.rec.SetMaintenance(a, b, true)
		}
		if a.After(now) {
			return
		}
		from = b
	}
}

// covered is the records the window marks: its apps, and the locations
// and services all of whose apps it covers.
func (l *Ledger) covered(w Window) []*entry {
	if w.Apps == nil {
		return nil
	}
	apps := w.Apps()
	in := make([]bool, len(l.cur[App]))
	var out []*entry
	for _, i := range apps {
		if i >= 0 && i < len(in) && !in[i] {
			in[i] = true
			out = append(out, l.cur[App][i])
		}
	}
	all := func(idx []int) bool {
		for _, i := range idx {
			if !in[i] {
				return false
			}
		}
		return len(idx) > 0
	}
	for li, idx := range l.locApps {
		if all(idx) {
			out = append(out, l.cur[Location][li])
		}
	}
	for si, idx := range l.svcApps {
		if all(idx) {
			out = append(out, l.cur[Service][si])
		}
	}
	return out
}

// Restored forgets the maintenance a saved record holds from now on: the
// windows are marked again from what the configuration and the API hold
// now, and one deleted or changed while the monitor was down must not stay
// marked.
func (l *Ledger) Restored(now time.Time) {
	for k := range l.byName {
		for _, e := range l.byName[k] {
			e.rec.SetMaintenance(now, far, false)
		}
	}
	clear(l.marks)
}
