package objectives

import (
	"time"

	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/objective"
)

// Snapshot is every objective's figures at one instant. It is immutable and
// safe for concurrent use.
type Snapshot struct {
	set  *Set
	book *ledger.Book
	at   time.Time
	st   []objective.Status
}

// Change is an objective whose state changed since the last evaluation.
type Change struct {
	Name     string
	From, To objective.State
	// Index is the objective's index in the Snapshot.
	Index int
}

// Tracker evaluates a Set cycle after cycle and tells which objectives
// changed state. Its zero value is ready; it is for one goroutine at a
// time.
type Tracker struct {
	set     *Set
	states  []objective.State
	scratch objective.Views
}

// Evaluate computes the figures of s's objectives at now from book, and
// returns those that changed state since the last call. An objective new to
// the set, or renamed, has no change: it had no state before.
func (t *Tracker) Evaluate(s *Set, now time.Time, book *ledger.Book) (*Snapshot, []Change) {
	snap := &Snapshot{set: s, book: book, at: now, st: make([]objective.Status, len(s.entries))}
	for i := range s.entries {
		e := &s.entries[i]
		src := e.source(book, t.scratch[:0])
		snap.st[i] = e.def.Evaluate(now, src)
		if vs, ok := src.(objective.Views); ok {
			t.scratch = vs[:0] // kept for the next objective: Evaluate keeps nothing
		}
	}
	var changes []Change
	prev := func(i int) (objective.State, bool) {
		if t.set == s {
			return t.states[i], true
		}
		if t.set == nil {
			return 0, false
		}
		j, ok := t.set.byName[s.entries[i].name]
		if !ok {
			return 0, false
		}
		return t.states[j], true
	}
	for i := range snap.st {
		if was, ok := prev(i); ok && was != snap.st[i].State {
			changes = append(changes, Change{Name: s.entries[i].name, From: was, To: snap.st[i].State, Index: i})
		}
	}
	if t.set != s || len(t.states) != len(snap.st) {
		t.states = make([]objective.State, len(snap.st))
	}
	for i := range snap.st {
		t.states[i] = snap.st[i].State
	}
	t.set = s
	return snap, changes
}

// source is e's time in book: its app's or service's record, or the sum of
// its location's or selection's apps' records (the removed apps of a
// location included, for the time they were there), appended to buf.
func (e *entry) source(book *ledger.Book, buf objective.Views) objective.Source {
	switch e.kind {
	case "app":
		if i, ok := book.Lookup(ledger.App, e.subject); ok {
			return book.View(ledger.App, i)
		}
	case "service":
		if i, ok := book.Lookup(ledger.Service, e.subject); ok {
			return book.View(ledger.Service, i)
		}
	case "location":
		if li, ok := book.Lookup(ledger.Location, e.subject); ok {
			for _, i := range book.LocationApps(li) {
				buf = append(buf, book.View(ledger.App, i))
			}
		}
	case "selector":
		for _, i := range e.apps {
			if i < book.Len(ledger.App) {
				buf = append(buf, book.View(ledger.App, i))
			}
		}
	}
	return buf
}

// Len is the number of objectives.
func (s *Snapshot) Len() int { return len(s.st) }

// Index returns the index of the objective named name.
func (s *Snapshot) Index(name string) (int, bool) {
	i, ok := s.set.byName[name]
	return i, ok
}

// Covering returns the first objective whose subject is the app, location
// or service (kind) named name.
func (s *Snapshot) Covering(kind, name string) (int, bool) {
	for i := range s.set.entries {
		if e := &s.set.entries[i]; e.kind == kind && e.subject == name {
			return i, true
		}
	}
	return 0, false
}

// Name is objective i's name.
func (s *Snapshot) Name(i int) string { return s.set.entries[i].name }

// Status is objective i's figures.
func (s *Snapshot) Status(i int) objective.Status { return s.st[i] }

// Target is objective i's target.
func (s *Snapshot) Target(i int) float64 { return s.set.entries[i].def.Target }

// Labels is objective i's labels.
func (s *Snapshot) Labels(i int) map[string]string { return s.set.entries[i].def.Labels }

// LabelNames are the label names of every objective, sorted.
func (s *Snapshot) LabelNames() []string { return s.set.labelNames }

// Series is objective i's budget over its window, a point a day.
func (s *Snapshot) Series(i int) []objective.Point {
	e := &s.set.entries[i]
	return e.def.Series(s.at, e.source(s.book, nil))
}
