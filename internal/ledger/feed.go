package ledger

import (
	"time"

	"github.com/availmon/availmon/timeline"
)

// Change is an outage that began or ended during a cycle: what /api/ws
// announces.
type Change struct {
	Kind     Kind
	Name     string
	Location string    // an app's location
	Start    time.Time // when the outage began
	End      time.Time // when it ended; zero when it began in this cycle
	// Full is a location's: every app with a known state was down at some
	// time of the outage (so far). Always true for apps and services.
	Full bool
}

// outageTrack is what a feed needs to tell that an entity's outage began
// or ended: the record answers the same, but reading it every cycle would
// cost a pass over each record's day.
// Times are unix nanoseconds: 16 bytes an entity rather than 48. The
// entity's kind shares the track's last word (an entry of 240 bytes, an
// allocator size class, rather than 248 in 256), so the track is only ever
// changed through begin and end, which leave it alone.
type outageTrack struct {
	start, last int64 // the first and the last bad state of the outage
	on          bool
	full        bool
	kind        Kind // the entity's: not the track's, see above
}

// begin starts an outage at ns, full or not.
func (o *outageTrack) begin(ns int64, full bool) {
	o.start, o.last, o.on, o.full = ns, 0, true, full
}

// end forgets the outage.
func (o *outageTrack) end() {
	o.start, o.last, o.on, o.full = 0, 0, false, false
}

// tally counts a location's apps of the cycle by state, those in
// maintenance left out as the location's live counts leave them out.
type tally struct{ up, down int }

func (t tally) state() timeline.State {
	switch {
	case t.down == 0 && t.up > 0:
		return timeline.Up
	case t.down > 0 && t.up == 0:
		return timeline.Down
	case t.down > 0:
		return timeline.Partial
	}
	return timeline.Unknown
}

// Check records the check of app i of the layout made at t with the raw
// result s (not the damped state): s holds until the next check, at most
// hold. inMaint says the app was in a maintenance window, which leaves it
// out of its location's state of this cycle.
func (l *Ledger) Check(i int, t time.Time, s timeline.State, hold time.Duration, inMaint bool) {
	e := l.cur[App][i]
	e.rec.Check(t, s, hold)
	l.note(e, t, s, hold)
	if li := l.appLoc[i]; li >= 0 && !inMaint {
		switch s {
		case timeline.Up:
			l.tally[li].up++
		case timeline.Down:
			l.tally[li].down++
		}
	}
}

// EndCycle records the locations' states the cycle's checks make, and the
// services' states svc (one per service of the layout: Up while the quorum
// holds, Down below it, Unknown when it cannot be told), all at now. It
// appends to dst the outages that began or ended in the cycle, and drops
// the time past the retention about once a day.
func (l *Ledger) EndCycle(now time.Time, hold time.Duration, svc []timeline.State, dst []Change) []Change {
	for li, e := range l.cur[Location] {
		s := l.tally[li].state()
		l.tally[li] = tally{}
		e.rec.Check(now, s, hold)
		l.note(e, now, s, hold)
	}
	for si, e := range l.cur[Service] {
		s := timeline.Unknown
		if si < len(svc) {
			s = svc[si]
		}
		e.rec.Check(now, s, hold)
		l.note(e, now, s, hold)
	}
	l.prune(now)
	dst = append(dst, l.changes...)
	clear(l.changes)
	l.changes = l.changes[:0]
	if cap(l.changes) > 256 {
		l.changes = nil // a burst (every app's first outage) is not kept for good
	}
	return dst
}

// note follows e's outage with the state s found at t, as the record
// counts it: bad time (down, or a location's partial) makes an outage,
// which the first state that is not bad ends, or the running out of the
// last bad state's hold.
func (l *Ledger) note(e *entry, t time.Time, s timeline.State, hold time.Duration) {
	bad := s == timeline.Down || s == timeline.Partial
	o := &e.out
	ns := t.UnixNano()
	if o.on && (!bad || ns-o.last > int64(hold)) {
		end := min(ns, o.last+int64(hold))
		l.changes = append(l.changes, Change{Kind: e.kind(), Name: e.name, Location: e.location,
			Start: time.Unix(0, o.start).In(t.Location()), End: time.Unix(0, end).In(t.Location()), Full: o.full})
		o.end()
	}
	if !bad {
		return
	}
	if !o.on {
		o.begin(ns, false)
		l.changes = append(l.changes, Change{Kind: e.kind(), Name: e.name, Location: e.location,
			Start: t, Full: s == timeline.Down})
	}
	o.last = ns
	o.full = o.full || s == timeline.Down
}
