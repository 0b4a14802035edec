package report

import (
	"time"

	"github.com/availmon/availmon/internal/ledger"
	"github.com/availmon/availmon/timeline"
)

// Report is the report of a period: its rows, services first, then
// locations, then apps, each in the Book's order (the configuration's,
// then the removed ones by name). A row is made from the Book when it is
// asked for (Row): at 100,000 apps the rows whole are 16 MB, which a
// report written as it is made never holds at once.
type Report struct {
	Period   string
	Zone     *time.Location
	From, To time.Time // To is the Book's time when the period has not ended
	Complete bool      // the period had ended when the Book was taken

	book *ledger.Book
	lq   ledger.Query
	rows []rowRef
}

// rowRef names a row's service, location or app in the Book.
type rowRef struct {
	kind ledger.Kind
	i    int
}

// Row is the figures of one service, location or app over the period.
type Row struct {
	Kind     ledger.Kind
	Name     string
	Location string // an app's
	Apps     int    // a location's apps, the removed ones that were there included
	// Removed is when it left the configuration, zero while it is in it.
	// A report lists those removed during the period, not before.
	Removed time.Time
	timeline.Totals
	// Downtime and Outages are those of /api/availability: see
	// ledger.Figures.
	Downtime time.Duration
	Outages  int
	// Longest is the longest outage that overlaps the period, counted
	// whole (one that began before the period or goes on after it counts
	// all its bad time up to the report's end); zero without outages.
	Longest time.Duration
	// Recovered counts the outages that ended within the report's range;
	// MTTR is their mean duration, zero when none ended.
	Recovered int
	MTTR      time.Duration
}

// Make makes the report of q from b. q must have begun by b.At (Begun).
// b must not change while the report is in use.
func Make(b *ledger.Book, q Query) *Report {
	rng := q.Period.In(q.Zone)
	r := &Report{Period: q.Name, Zone: q.Zone, From: rng.Start, To: rng.End, Complete: !rng.End.After(b.At), book: b}
	if !r.Complete {
		r.To = b.At // the rest has not happened
	}
	r.lq = ledger.Query{From: r.From, To: r.To}
	n := b.Len(ledger.App) + b.Len(ledger.Location) + b.Len(ledger.Service)
	r.rows = make([]rowRef, 0, n)
	for _, k := range []ledger.Kind{ledger.Service, ledger.Location, ledger.App} {
		for i := range b.Len(k) {
			if rm := b.Removed(k, i); !rm.IsZero() && !rm.After(r.From) {
				continue // gone before the period: nothing to report
			}
			r.rows = append(r.rows, rowRef{k, i})
		}
	}
	return r
}

// Len is how many rows the report has.
func (r *Report) Len() int { return len(r.rows) }

// Row returns row n, 0 <= n < Len.
func (r *Report) Row(n int) Row { return row(r.book, r.rows[n].kind, r.rows[n].i, r.lq) }

func row(b *ledger.Book, k ledger.Kind, i int, lq ledger.Query) Row {
	w := Row{Kind: k, Name: b.Name(k, i), Removed: b.Removed(k, i)}
	var f ledger.Figures
	switch k {
	case ledger.App:
		w.Location = b.AppLocation(i)
		f = b.App(i, lq)
	case ledger.Location:
		apps := b.LocationApps(i)
		w.Apps = len(apps)
		f = b.Location(i, apps, lq)
	default:
		f = b.Service(i, lq)
	}
	w.Totals, w.Downtime, w.Outages = f.Totals, f.Downtime, f.Outages
	var recovered time.Duration
	for _, o := range b.Outages(k, i, lq.From, lq.To) {
		w.Longest = max(w.Longest, o.Duration)
		if !o.Ongoing {
			// A flapping day's bucket stands for Count outages whose
			// times are known to its edges only: Approximate says so.
			w.Recovered += o.Count
			recovered += o.Duration
		}
	}
	if w.Recovered > 0 {
		w.MTTR = recovered / time.Duration(w.Recovered)
	}
	return w
}
