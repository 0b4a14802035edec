//go:build race

package availmon_test

// raceEnabled scales the /api/ws burst test down: the race detector makes
// a million messages take minutes.
const raceEnabled = true
