// Package ledger keeps the availability record of a whole fleet: one
// timeline.Record per app, location and service, by name, fed once a cycle
// with what the cycle found, marked with the maintenance windows, pruned to
// the retention, and saved with the monitor's state.
//
//	l := ledger.New(ledger.Options{Retention: 400 * 24 * time.Hour})
//	l.SetLayout(now, layout, windows)        // New, a reload, discovery
//	l.Sync(now, windows, deleted)            // every cycle, before its checks
//	for i, r := range results {
//		l.Check(i, at[i], state(r), hold, inMaintenance[i])
//	}
//	changes = l.EndCycle(now, hold, serviceStates, changes[:0])
//	book := l.Book(now)                      // into the snapshot
//	f := book.App(i, ledger.Query{From: from, To: now})
//
// Entities are kept by name: an app that leaves the configuration keeps
// its record, marked removed, until the retention has passed over it; one
// that comes back under the same name goes on with it. A location's time is
// the sum of its apps' records; its own record, fed each cycle with Up (no
// app down), Partial, Down (every app with a known state down) or Unknown
// (no app with a known state), gives its outages. A service's record
// follows its quorum state.
//
// A Ledger is written by one goroutine (the monitor's cycle, under its
// lock); a Book is immutable and safe for concurrent use, so readers never
// wait for the writer.
package ledger
