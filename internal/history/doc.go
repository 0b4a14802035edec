// Package history keeps each app's most recent checks compactly, for
// /api/apps/{name} and the state file: Checks takes a Check per cycle and
// gives them back oldest first, and writes itself straight into a state
// file's Encoder. A Checks is safe for concurrent use: a cycle adds while
// requests list and a save encodes.
//
// It also keeps the checks of the last 24 hours counted per clock hour:
// Day for a location and the system, AppDay (the same in a third of the
// size) for each app, with Counts their sums. These are not safe for
// concurrent use: the cycle that owns them changes them.
package history
