package objectives

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/objective"
	"github.com/availmon/availmon/timeline"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// record is a ledger of fleet()'s layout fed a check a minute of each app
// from t0, app a's state at each minute given by down.
type record struct {
	l   *ledger.Ledger
	now time.Time
}

func newRecord() *record {
	l := ledger.New(ledger.Options{})
	l.SetLayout(t0, ledger.Layout{
		Apps:      []ledger.AppRef{{Name: "a", Location: "L1"}, {Name: "b", Location: "L1"}, {Name: "c", Location: "L2"}},
		Locations: []string{"L1", "L2"},
		Services:  []ledger.ServiceRef{{Name: "S", Apps: []int{0, 1}}},
	}, nil)
	return &record{l: l, now: t0}
}

// minutes feeds n minutes of checks, app a in state s, the others up.
func (r *record) minutes(n int, s timeline.State) *ledger.Book {
	for range n {
		r.l.Check(0, r.now, s, 2*time.Minute, false)
		r.l.Check(1, r.now, timeline.Up, 2*time.Minute, false)
		r.l.Check(2, r.now, timeline.Up, 2*time.Minute, false)
		r.l.EndCycle(r.now, 2*time.Minute, []timeline.State{s}, nil)
		r.now = r.now.Add(time.Minute)
	}
	return r.l.Book(r.now)
}

// The tracker tells a change of state once, by name across sets: an
// objective new to a set, or renamed, has no change; one that keeps its
// name keeps its state.
func TestTrackerChanges(t *testing.T) {
	r := newRecord()
	o := def(t, "o", "1d", objective.Subject{App: "a"}, nil)
	sel := def(t, "sel", "1d", objective.Subject{Selector: map[string]string{"team": "shop"}}, nil)
	set1, _ := Compile([]objective.Objective{o, sel}, time.UTC, fleet())
	var tr Tracker

	snap, changes := tr.Evaluate(set1, r.now, r.minutes(60, timeline.Up))
	if changes != nil || snap.Status(0).State != objective.OK {
		t.Fatalf("first evaluation: %v, state %v; want no change, ok", changes, snap.Status(0).State)
	}
	// 5 minutes down of 65: over 1% of o's counted time and over 1% of the
	// selection's (5 of 130 app-minutes).
	snap, changes = tr.Evaluate(set1, r.now, r.minutes(5, timeline.Down))
	want := []Change{{Name: "o", From: objective.OK, To: objective.Breached, Index: 0},
		{Name: "sel", From: objective.OK, To: objective.Breached, Index: 1}}
	if d := cmp.Diff(want, changes); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}
	if st := snap.Status(1).Totals; st.Up != 125*time.Minute || st.Down != 5*time.Minute {
		t.Errorf("the selection's totals %+v, want a's and b's summed", st)
	}
	if _, changes = tr.Evaluate(set1, r.now, r.minutes(1, timeline.Up)); changes != nil {
		t.Errorf("no change of state, changes %v", changes)
	}

	// A new set: o keeps its name (and its state, so no change), sel is
	// renamed, n is new: neither has a change though both are breached.
	n := def(t, "n", "1d", objective.Subject{Location: "L1"}, nil)
	sel.Name = "sel2"
	set2, _ := Compile([]objective.Objective{n, sel, o}, time.UTC, fleet())
	snap, changes = tr.Evaluate(set2, r.now, r.minutes(1, timeline.Up))
	if changes != nil {
		t.Errorf("after the change of set, changes %v; want none", changes)
	}
	for i := range snap.Len() {
		if snap.Status(i).State != objective.Breached {
			t.Errorf("%s: %v, want breached", snap.Name(i), snap.Status(i).State)
		}
	}
	if i, ok := snap.Index("o"); !ok || i != 2 {
		t.Errorf("Index(o) = %d, %v; want 2", i, ok)
	}
	// Back to ok: o's down time leaves its day, one change by its new index.
	r.now = r.now.Add(24 * time.Hour)
	_, changes = tr.Evaluate(set2, r.now, r.minutes(60, timeline.Up))
	want = []Change{{Name: "n", From: objective.Breached, To: objective.OK, Index: 0},
		{Name: "sel2", From: objective.Breached, To: objective.OK, Index: 1},
		{Name: "o", From: objective.Breached, To: objective.OK, Index: 2}}
	if d := cmp.Diff(want, changes); d != "" {
		t.Errorf("changes a day on (-want +got):\n%s", d)
	}
}

// Snapshot finds an objective covering an app, location or service; the
// first when several do.
func TestSnapshotCovering(t *testing.T) {
	r := newRecord()
	set, _ := Compile([]objective.Objective{
		def(t, "sel", "1d", objective.Subject{Selector: map[string]string{"team": "shop"}, PerApp: true}, nil),
		def(t, "a", "1d", objective.Subject{App: "a"}, nil),
		def(t, "s", "1d", objective.Subject{Service: "S"}, nil),
	}, time.UTC, fleet())
	var tr Tracker
	snap, _ := tr.Evaluate(set, r.now, r.minutes(10, timeline.Up))
	for _, tt := range []struct {
		kind, name string
		want       string
	}{{"app", "a", "sel:a"}, {"app", "b", "sel:b"}, {"service", "S", "s"}, {"app", "c", ""}, {"location", "L1", ""}} {
		i, ok := snap.Covering(tt.kind, tt.name)
		got := ""
		if ok {
			got = snap.Name(i)
		}
		if got != tt.want {
			t.Errorf("Covering(%s, %s) = %q, want %q", tt.kind, tt.name, got, tt.want)
		}
	}
}
