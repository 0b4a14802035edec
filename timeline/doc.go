// Package timeline keeps the time of an app, service or location by state
// (up, down, partial, unknown) and maintenance, for years in little memory,
// and answers over any range: totals, availability and coverage, totals per
// step (the days of a 90-day bar), and outages.
//
//	var r timeline.Record
//	r.Check(t, timeline.Up, 2*interval)          // every check, in time order
//	r.SetMaintenance(from, to, true)            // a window, past or future
//	r.Fill(spans...)                            // the backfill: only unknown time
//	v := r.View()                               // for readers: immutable, no copy
//	tot := v.Totals(now.Add(-30*24*time.Hour), now)
//	a, _ := tot.Availability()                  // up / (up + down)
//
// Time is a parameter everywhere: the package reads no clock.
//
// # Definitions
//
// A check's result holds from its time until the next check, at most for
// the hold it is given (twice the interval); the time after that is unknown
// until a check or Fill says otherwise. Time nobody observed is unknown,
// never down. Fill (the backfill) writes only unknown time, and a check wins
// over it. Maintenance is marked over ranges and applies to any time,
// observed or filled. Totals count Up, Down, Partial and Unknown outside
// maintenance and Maintenance whatever the state; availability is
// up / (up + down), coverage (up + down) / (range - maintenance).
// A location's time is the sum of its apps' (Totals.Add, View.AddSteps into
// one sum); its own Record, fed each cycle with Up (no app down), Partial
// or Down (every app with a known state down), gives its outages.
//
// # Exact and bounded
//
// The record is exact to the second wherever it changed at most
// ExactChangesPerDay times in a UTC day (a change of state or a maintenance
// boundary). A day with more (flapping) keeps, per 15 minutes, the time of
// each state in and out of maintenance, the outages that began and whether
// one went on from before: figures stay exact to 15-minute edges (every
// time zone's offset is a multiple of 15 minutes), are marked Approximate,
// and such a day costs a few hundred bytes whatever happened in it.
// Otherwise a change costs two or three bytes, and a day without change
// nothing; changes that each go back to the state before the last (outages
// starting and ending), past the current day, are kept in runs of
// bit-coded gaps: about a byte and a half a change for outages at random
// times, less for regular ones.
//
// Instants are whole seconds (floored) between 1970-01-02 and the end of
// year 9999.
//
// # Concurrency
//
// A Record is not safe for concurrent use: one goroutine writes it. View
// returns an immutable view sharing the record's bytes, without allocating;
// readers keep views (say in a snapshot swapped in atomically) and query
// them while the writer goes on, never waiting for it. The writer copies
// what a view shares before changing it in place, which happens only when a
// day turns to buckets, for the unfinished flapping day, and when the past is
// rewritten (Fill, SetMaintenance of past time, Prune).
package timeline
