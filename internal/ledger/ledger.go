package ledger

import (
	"slices"
	"time"

	"github.com/availmon/availmon/timeline"
)

// DefaultRetention is how long records are kept when Options.Retention is
// zero: the longest window (400d) a query can name.
const DefaultRetention = 400 * 24 * time.Hour

// pruneEvery is how often the time past the retention is dropped: it
// rewrites every record, and a day more costs nothing to speak of.
const pruneEvery = 24 * time.Hour

// pruneBytesPerCycle bounds the bytes of records a cycle's prune writes
// afresh: 10,000 apps with 400 days of 10 outages a day (160 MB) are
// pruned in 160 cycles.
const pruneBytesPerCycle = 1 << 20

// Options configures a Ledger.
type Options struct {
	// Retention is how long time is kept; default DefaultRetention.
	Retention time.Duration
}

// Kind is what an entity of the ledger is.
type Kind uint8

// The kinds of entities.
const (
	App Kind = iota
	Location
	Service
	nKinds
)

func (k Kind) String() string {
	switch k {
	case App:
		return "app"
	case Location:
		return "location"
	case Service:
		return "service"
	}
	return "unknown"
}

// Layout is the fleet a configuration describes.
type Layout struct {
	Apps      []AppRef
	Locations []string
	Services  []ServiceRef
}

// AppRef is an app of a Layout.
type AppRef struct{ Name, Location string }

// ServiceRef is a service of a Layout: Apps are indexes into Layout.Apps.
type ServiceRef struct {
	Name string
	Apps []int
}

// Ledger is the record of every app, location and service by name. It is
// not safe for concurrent use: one goroutine writes it and hands readers
// Books.
type Ledger struct {
	retention time.Duration
	byName    [nKinds]map[string]*entry
	cur       [nKinds][]*entry     // the current layout's, in its order
	appLoc    []int                // per current app: its location's index
	locApps   [][]int              // per current location: its apps' indexes
	svcApps   [][]int              // per current service: its apps' indexes
	tally     []tally              // per current location, during a cycle
	roster    *roster              // names for Books; nil when it must be made again
	chunks    [nKinds][]*viewChunk // the last Book's views, of roster
	marks     map[string]*mark     // maintenance windows marked, by Window.Key
	changes   []Change             // found during the cycle, handed out by EndCycle
	lastPrune time.Time
	pruneCut  time.Time // of the prune going on
	pruning   []*entry  // the entities the prune going on has still to prune
}

// entry is one entity's record and what the ledger tracks to announce its
// outages.
type entry struct {
	name     string
	location string // an app's, as of its last layout
	rec      timeline.Record
	out      outageTrack // and the entity's kind: see outageTrack
}

func (e *entry) kind() Kind { return e.out.kind }

func (e *entry) setRemoved(t time.Time) { e.rec.SetRemoved(t) }

// New returns an empty ledger.
func New(o Options) *Ledger {
	l := &Ledger{retention: o.Retention}
	if l.retention <= 0 {
		l.retention = DefaultRetention
	}
	for k := range l.byName {
		l.byName[k] = make(map[string]*entry)
	}
	l.marks = make(map[string]*mark)
	return l
}

// Retention is how long the ledger keeps time.
func (l *Ledger) Retention() time.Duration { return l.retention }

func (l *Ledger) get(k Kind, name string) *entry {
	e := l.byName[k][name]
	if e == nil {
		e = &entry{name: name, out: outageTrack{kind: k}}
		l.byName[k][name] = e
	}
	return e
}

// SetLayout makes lay the current fleet at now: entities new to the ledger
// start empty, those it knew go on with their records (a removed one
// comes back), and those lay leaves out are marked removed at now. ws are
// the maintenance windows, whose coverage is worked out again for the new
// fleet from now on.
func (l *Ledger) SetLayout(now time.Time, lay Layout, ws []Window) {
	keep := [nKinds]map[*entry]bool{}
	for k := range keep {
		keep[k] = make(map[*entry]bool)
	}
	locIdx := make(map[string]int, len(lay.Locations))
	l.cur[Location] = l.cur[Location][:0]
	for i, name := range lay.Locations {
		e := l.get(Location, name)
		l.cur[Location] = append(l.cur[Location], e)
		locIdx[name] = i
	}
	l.cur[App] = l.cur[App][:0]
	l.appLoc = l.appLoc[:0]
	l.locApps = make([][]int, len(lay.Locations))
	for i, a := range lay.Apps {
		e := l.get(App, a.Name)
		e.location = a.Location
		l.cur[App] = append(l.cur[App], e)
		li, ok := locIdx[a.Location]
		if !ok {
			li = -1
		} else {
			l.locApps[li] = append(l.locApps[li], i)
		}
		l.appLoc = append(l.appLoc, li)
	}
	l.cur[Service] = l.cur[Service][:0]
	l.svcApps = make([][]int, len(lay.Services))
	for i, s := range lay.Services {
		l.cur[Service] = append(l.cur[Service], l.get(Service, s.Name))
		l.svcApps[i] = slices.Clone(s.Apps)
	}
	for k := range l.cur {
		for _, e := range l.cur[k] {
			keep[k][e] = true
			if !e.rec.Removed().IsZero() {
				e.setRemoved(time.Time{})
			}
		}
		for _, e := range l.byName[k] {
			if !keep[k][e] && e.rec.Removed().IsZero() {
				e.setRemoved(now)
				e.out.end()
			}
		}
	}
	l.tally = make([]tally, len(lay.Locations))
	l.roster = nil
	l.resync(now, ws, nil)
}

// prune drops the time past the retention, about once a day, and the
// removed entities whose removal the retention has passed.
//
// Pruning a record writes it afresh, and the old stream stays live until
// the Books that share it are gone: at once, every record would be held
// twice (and a first cycle after a restore prunes them all). So a prune
// rewrites at most pruneBytesPerCycle of records a cycle, going on at the
// next cycles until all are pruned.
func (l *Ledger) prune(now time.Time) {
	if l.lastPrune.IsZero() || now.Sub(l.lastPrune) >= pruneEvery || !now.After(l.lastPrune) {
		l.lastPrune = now
		l.pruneCut = now.Add(-l.retention)
		l.pruning = l.pruning[:0]
		for k := range l.byName {
			for name, e := range l.byName[k] {
				if r := e.rec.Removed(); !r.IsZero() && r.Before(l.pruneCut) {
					delete(l.byName[k], name)
					l.roster = nil
					continue
				}
				l.pruning = append(l.pruning, e)
			}
		}
	}
	done := 0
	for n := 0; done < len(l.pruning) && n < pruneBytesPerCycle; done++ {
		n += l.pruning[done].rec.Prune(l.pruneCut)
	}
	clear(l.pruning[:done])
	l.pruning = l.pruning[done:]
	if len(l.pruning) == 0 {
		l.pruning = nil
	}
}
