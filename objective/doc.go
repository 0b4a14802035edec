// Package objective computes service level objectives and their error
// budgets from availmon's record of time (package timeline): how much of
// a promise is kept so far, how much bad time is left to spend, how fast it
// burns, and whether someone should be paged.
//
//	target, err := objective.ParseTarget("99.9%")   // 0.999
//	window, err := objective.ParseWindow("month")   // or "30d", "quarter"
//	window.Location = berlin                        // months of Berlin's clocks
//	o := objective.Objective{Name: "checkout", Target: target, Window: window}
//	err = o.Validate()
//	st := o.Evaluate(now, view)                     // every cycle; a timeline.View
//	st = o.Evaluate(now, objective.Views(selected)) // or several apps as one
//	days := o.Series(now, view)                     // the budget's course, per day
//
// # Definitions
//
// An objective counts time, not events: its subject's up time is good, its
// down time bad, and time that is unknown (nobody observed it) or in
// maintenance is not counted at all. Partial time, which only a location's
// own record has, is not counted either: a location's or a selection's
// objective is fed the sum of its apps' time (Views). A Latency objective
// is fed time too, by whoever records its checks: good and bad in the
// share of checks answered within its Threshold, unknown without checks.
//
//   - Attainment is up / (up + down) over the window so far.
//   - The error budget is (1 - target) times the time the window counts:
//     up + down so far, and for a calendar window the rest of it as well,
//     less the maintenance marked ahead, as if every second of it will be
//     observed. So the budget is spent exactly when the attainment falls
//     below the target (for a calendar window: would, even with a perfect
//     rest), unknown time and maintenance neither spend budget nor earn
//     any, and a window with little counted time has a small budget, as
//     its attainment rests on little evidence.
//   - The burn rate over a trailing window (5m, 30m, 1h, 2h, 6h, 1d, 3d) is
//     down / (up + down) in it divided by 1 - target: 1 spends the budget in
//     exactly the objective's window. With no counted time it is missing,
//     not 0.
//   - A calendar window's projection is its attainment at its end if the
//     rest goes as the trailing 7 days did.
//   - The state is Breached when the budget is overspent, AtRisk when the
//     burn reaches 14.4 over 1h and 5m, or 6 over 6h and 30m, and OK else.
//
// Time is a parameter: the package reads no clock, keeps nothing between
// calls, and all of it is safe for concurrent use as long as the Sources
// are (timeline views are).
package objective
