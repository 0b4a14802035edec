package ledger

import (
	"slices"
	"time"

	"github.com/availmon/availmon/timeline"
)

// Past is what a backfill learnt of [From, To), for Fill.
type Past struct {
	From, To time.Time
	// Apps are per app of the current layout (by its index) the states
	// learnt, over spans inside [From, To); nil where nothing was.
	Apps [][]timeline.Span
	// Service returns service si's state (Up, Down or Unknown) when each
	// of its apps is in the state state(app) tells, an app in maintenance
	// being Up, as the cycles count it. Nil leaves the services' records
	// as they are.
	Service func(si int, state func(app int) timeline.State) timeline.State
}

// Fill writes what a backfill learnt into the time the ledger has as
// unknown: time a cycle observed up or down is never overwritten, and the
// maintenance marked over the time applies to what is filled as it does
// to observed time. The locations' and services' records are then filled
// over [From, To) from their apps' records, as the cycles feed them: a
// location from its apps not in maintenance, a service from its quorum.
// Their outages are the records' own, so backfilled ones are kept and
// listed like observed ones; none is announced (they are over, or a cycle
// announces them).
func (l *Ledger) Fill(p Past) {
	if !p.From.Before(p.To) {
		return
	}
	for i, spans := range p.Apps {
		if i < len(l.cur[App]) && len(spans) > 0 {
			l.cur[App][i].rec.Fill(spans...)
		}
	}
	views := make([]timeline.View, len(l.cur[App]))
	for i, e := range l.cur[App] {
		views[i] = e.rec.View()
	}
	for li, e := range l.cur[Location] {
		spans := derive(views, l.locApps[li], p.From, p.To, locationState)
		e.rec.Fill(spans...)
	}
	if p.Service == nil {
		return
	}
	for si, e := range l.cur[Service] {
		spans := derive(views, l.svcApps[si], p.From, p.To, func(st []appState, idx []int) timeline.State {
			pos := make(map[int]int, len(idx))
			for k, ai := range idx {
				pos[ai] = k
			}
			return p.Service(si, func(ai int) timeline.State {
				k, ok := pos[ai]
				if !ok {
					return timeline.Unknown
				}
				if st[k].maint {
					return timeline.Up
				}
				return st[k].s
			})
		})
		e.rec.Fill(spans...)
	}
}

// appState is an app's state at an instant of a derivation.
type appState struct {
	s     timeline.State
	maint bool
}

// locationState is a location's state from its apps', those in
// maintenance left out, as a cycle's tally makes it.
func locationState(st []appState, _ []int) timeline.State {
	var t tally
	for _, a := range st {
		if a.maint {
			continue
		}
		switch a.s {
		case timeline.Up:
			t.up++
		case timeline.Down:
			t.down++
		}
	}
	return t.state()
}

// change is an app's state from an instant on, in a derivation.
type change struct {
	at int64
	k  int // the app's place in idx
	st appState
}

// derive sweeps the records of apps idx over [from, to) and returns the
// spans of the state of returns at each instant, Unknown left out.
func derive(views []timeline.View, idx []int, from, to time.Time,
	of func(st []appState, idx []int) timeline.State) []timeline.Span {
	if len(idx) == 0 {
		return nil
	}
	var chs []change
	for k, ai := range idx {
		if ai < 0 || ai >= len(views) {
			continue
		}
		views[ai].Walk(from, to, func(s timeline.Span, maint bool) {
			chs = append(chs, change{at: s.From.Unix(), k: k, st: appState{s.State, maint}})
		})
	}
	slices.SortStableFunc(chs, func(a, b change) int { return int(min(max(a.at-b.at, -1), 1)) })
	st := make([]appState, len(idx))
	var out []timeline.Span
	end := to.Unix()
	for i := 0; i < len(chs); {
		at := chs[i].at
		for ; i < len(chs) && chs[i].at == at; i++ {
			st[chs[i].k] = chs[i].st
		}
		next := end
		if i < len(chs) {
			next = chs[i].at
		}
		s := of(st, idx)
		if s == timeline.Unknown || next <= at {
			continue
		}
		a, b := time.Unix(at, 0).UTC(), time.Unix(next, 0).UTC()
		if n := len(out); n > 0 && out[n-1].State == s && out[n-1].To.Equal(a) {
			out[n-1].To = b
			continue
		}
		out = append(out, timeline.Span{From: a, To: b, State: s})
	}
	return out
}
