package ledger

import (
	"slices"
	"strings"
	"time"

	"github.com/availmon/availmon/timeline"
)

// roster names the entities of Books: the layout's first, in its order
// (so an app's index is the monitor's), then the removed ones by name. It
// is made again only when the layout changes or a removed entity is
// dropped, and shared by the Books until then.
type roster struct {
	ents    [nKinds][]*entry
	byName  [nKinds][]int32 // indexes into ents, in the order of the names: a map would cost ten times the bytes
	current [nKinds]int     // how many of ents are of the layout
	appLoc  []string        // per app: its location, as of its last layout
	locApps [][]int         // per location: its apps, the removed ones that were there included
}

func (l *Ledger) makeRoster() *roster {
	r := &roster{}
	for k := range nKinds {
		r.ents[k] = append(r.ents[k], l.cur[k]...)
		r.current[k] = len(r.ents[k])
		in := make(map[*entry]bool, len(l.cur[k]))
		for _, e := range l.cur[k] {
			in[e] = true
		}
		var rest []*entry
		for _, e := range l.byName[k] {
			if !in[e] {
				rest = append(rest, e)
			}
		}
		slices.SortFunc(rest, func(a, b *entry) int { return strings.Compare(a.name, b.name) })
		r.ents[k] = append(r.ents[k], rest...)
		ents := r.ents[k]
		r.byName[k] = make([]int32, len(ents))
		for i := range ents {
			r.byName[k][i] = int32(i)
		}
		slices.SortFunc(r.byName[k], func(a, b int32) int { return strings.Compare(ents[a].name, ents[b].name) })
	}
	r.appLoc = make([]string, len(r.ents[App]))
	r.locApps = make([][]int, len(r.ents[Location]))
	for i, e := range r.ents[App] {
		r.appLoc[i] = e.location
		if li, ok := r.lookup(Location, e.location); ok {
			r.locApps[li] = append(r.locApps[li], i)
		}
	}
	return r
}

// lookup returns the index of the entity of kind k named name.
func (r *roster) lookup(k Kind, name string) (int, bool) {
	ents := r.ents[k]
	j, ok := slices.BinarySearchFunc(r.byName[k], name, func(i int32, name string) int {
		return strings.Compare(ents[i].name, name)
	})
	if !ok {
		return 0, false
	}
	return int(r.byName[k][j]), true
}

// Book is the ledger as of one cycle: a view of every record, for
// readers. It is immutable and safe for concurrent use.
//
// Its views are kept in chunks that Books share: a Book makes a new chunk
// only where a record changed otherwise than by a check that found its
// state again (its stamp), so that a Book costs memory for what changed in
// the cycle, not for every entity.
type Book struct {
	// At is when it was taken: the end of the rolling windows asked of
	// it, and the latest time its figures know.
	At     time.Time
	r      *roster
	n      [nKinds]int
	chunks [nKinds][]*viewChunk
	stamp  [nKinds]timeline.Stamp // of the steady views
}

// chunkLen is the views of a chunk: a changed record costs a Book its
// chunk's views (72 bytes each), an unchanged chunk a pointer. 14 views
// and their marks fit the allocator's 1,024-byte size class; 16 would
// take 1,280 bytes.
const chunkLen = 14

// viewChunk holds chunkLen views of a kind, in the roster's order; it is
// never written once a Book has it. A view marked steady reads with the
// stamp of the Book that reads it.
type viewChunk struct {
	views  [chunkLen]timeline.View
	steady uint16 // bit j: views[j] is steady
}

func (c *viewChunk) view(j int, st timeline.Stamp) timeline.View {
	if c.steady&(1<<j) != 0 {
		return c.views[j].WithStamp(st)
	}
	return c.views[j]
}

// Book returns the ledger's records as they are at now. It shares the
// previous Book's chunks of views where the records did not change but for
// their stamp.
func (l *Ledger) Book(now time.Time) *Book {
	if l.roster == nil {
		l.roster = l.makeRoster()
		l.chunks = [nKinds][]*viewChunk{}
	}
	b := &Book{At: now, r: l.roster}
	for k := range nKinds {
		ents := l.roster.ents[k]
		b.n[k] = len(ents)
		b.stamp[k] = commonStamp(ents)
		b.chunks[k] = make([]*viewChunk, (len(ents)+chunkLen-1)/chunkLen)
		for ci := range b.chunks[k] {
			var prev *viewChunk
			if ci < len(l.chunks[k]) {
				prev = l.chunks[k][ci]
			}
			b.chunks[k][ci] = nextChunk(prev, ents[ci*chunkLen:min(len(ents), (ci+1)*chunkLen)], b.stamp[k])
		}
		l.chunks[k] = b.chunks[k]
	}
	return b
}

// nextChunk returns prev when its views, read with the stamp st, are those
// of ents now, or else a new chunk of their views.
func nextChunk(prev *viewChunk, ents []*entry, st timeline.Stamp) *viewChunk {
	var cur [chunkLen]timeline.View
	same := prev != nil
	for j, e := range ents {
		cur[j] = e.rec.View()
		same = same && prev.view(j, st).Same(cur[j])
	}
	if same {
		return prev
	}
	c := &viewChunk{views: cur}
	for j := range ents {
		if cur[j].WithStamp(st).Same(cur[j]) {
			c.steady |= 1 << j
		}
	}
	return c
}

// commonStamp returns the stamp most of ents' records have (a cycle checks
// them all at one time), by majority vote of a sample: a view of each
// record would be taken twice otherwise.
func commonStamp(ents []*entry) timeline.Stamp {
	const sample = 64
	var (
		st timeline.Stamp
		n  int
	)
	step := max(len(ents)/sample, 1)
	for i := 0; i < len(ents); i += step {
		s := ents[i].rec.View().Stamp()
		switch {
		case n == 0:
			st, n = s, 1
		case s == st:
			n++
		default:
			n--
		}
	}
	return st
}

// Len is the number of entities of kind k: the layout's (Current of
// them) and then the removed ones.
func (b *Book) Len(k Kind) int { return b.n[k] }

// Current is how many entities of kind k, the first ones, are those of the
// layout; their indexes are the layout's.
func (b *Book) Current(k Kind) int { return b.r.current[k] }

// Lookup returns the index of the entity of kind k named name.
func (b *Book) Lookup(k Kind, name string) (int, bool) {
	return b.r.lookup(k, name)
}

// Name is the name of entity i of kind k.
func (b *Book) Name(k Kind, i int) string { return b.r.ents[k][i].name }

// AppLocation is app i's location, as of its last layout.
func (b *Book) AppLocation(i int) string { return b.r.appLoc[i] }

// LocationApps returns the apps of location i, the removed apps that were
// there included, in the order of the book.
func (b *Book) LocationApps(i int) []int { return b.r.locApps[i] }

// Removed is when entity i of kind k was removed from the configuration;
// zero while it is configured.
func (b *Book) Removed(k Kind, i int) time.Time { return b.View(k, i).Removed() }

// View returns the record of entity i of kind k.
func (b *Book) View(k Kind, i int) timeline.View {
	if uint(i) >= uint(b.n[k]) {
		panic("ledger: Book.View index out of range")
	}
	return b.chunks[k][i/chunkLen].view(i%chunkLen, b.stamp[k])
}

// Query is a range asked of a Book, and its steps.
type Query struct {
	From, To time.Time
	// Steps, when set, are the bounds of the steps, From first and To
	// last, in order.
	Steps []time.Time
}

// Figures are an entity's figures over a Query's range.
type Figures struct {
	timeline.Totals
	// Downtime is the down time of an app or a service; a location's is
	// the time its own record was in an outage (some app down), which the
	// sum of its apps' down time would count once per app.
	Downtime time.Duration
	// Outages counts the outages that overlap the range.
	Outages int
	// Steps are the totals of each step, when the query had steps.
	Steps []timeline.Totals
}

// App returns the figures of app i.
func (b *Book) App(i int, q Query) Figures { return b.own(App, i, q) }

// Service returns the figures of service i.
func (b *Book) Service(i int, q Query) Figures { return b.own(Service, i, q) }

func (b *Book) own(k Kind, i int, q Query) Figures {
	v := b.View(k, i)
	var (
		f      Figures
		approx bool // of the outages
	)
	if q.Steps != nil {
		f.Steps = make([]timeline.Totals, len(q.Steps)-1)
		v.AddSteps(f.Steps, q.Steps)
		for _, s := range f.Steps {
			f.Totals = f.Totals.Add(s)
		}
		f.Outages, approx = v.CountOutages(q.From, q.To)
	} else {
		f.Totals, f.Outages, approx = v.Summary(q.From, q.To)
	}
	f.Approximate = f.Approximate || approx
	f.Downtime = f.Down
	return f
}

// Location returns the figures of location i: the sum of the apps given
// (LocationApps for all of them), and its own downtime and outages.
func (b *Book) Location(i int, apps []int, q Query) Figures {
	var f Figures
	if q.Steps != nil {
		f.Steps = make([]timeline.Totals, len(q.Steps)-1)
	}
	for _, ai := range apps {
		v := b.View(App, ai)
		if q.Steps != nil {
			v.AddSteps(f.Steps, q.Steps)
		} else {
			f.Totals = f.Totals.Add(v.Totals(q.From, q.To))
		}
	}
	for _, s := range f.Steps {
		f.Totals = f.Totals.Add(s)
	}
	t, n, approx := b.View(Location, i).Summary(q.From, q.To)
	f.Downtime = t.Down + t.Partial
	f.Outages = n
	f.Approximate = f.Approximate || t.Approximate || approx
	return f
}

// Outages returns the outages of entity i of kind k that overlap
// [from, to), oldest first.
func (b *Book) Outages(k Kind, i int, from, to time.Time) []timeline.Outage {
	return b.View(k, i).Outages(from, to)
}
