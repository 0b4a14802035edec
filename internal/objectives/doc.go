// Package objectives is the monitor's set of objectives: it resolves their
// subjects against the fleet (an app, a location, a service, the apps of a
// label selector), evaluates them every cycle from the ledger's Book
// (package objective does the arithmetic), tells which changed state, and
// gives their figures as the API and /metrics show them.
//
//	set, errs := objectives.Compile(defs, tz, fleet) // New, Reconfigure, discovery
//	snap, changes := tracker.Evaluate(set, now, book) // every cycle
//	snap.JSON(i), snap.Detail(i), snap.Prom()
//
// A Set is immutable; a Tracker remembers the last states, so it is used by
// one goroutine at a time (the monitor's cycle, under its lock); a Snapshot
// is immutable and safe for concurrent use.
package objectives
