//go:build !race

package availmon_test

// raceEnabled scales the /api/ws burst test down under the race detector.
const raceEnabled = false
