package ledger

import "time"

// Book returns the saved records as a Book taken at at (the time of the
// save), for reading a state file without a monitor (availmon report):
// the entities not marked removed are the layout, in their saved order,
// which is the monitor's. The Book shares the records of s.
func (s *Saved) Book(at time.Time) *Book {
	l := New(Options{})
	for i := range s.ents {
		se := &s.ents[i]
		e := l.get(se.kind, se.name)
		e.location, e.rec = se.location, se.rec
		if e.rec.View().Removed().IsZero() {
			l.cur[se.kind] = append(l.cur[se.kind], e)
		}
	}
	return l.Book(at)
}
