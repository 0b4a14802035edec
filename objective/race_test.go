//go:build race

package objective_test

// raceEnabled scales the property test down under the race detector, which
// slows its minute-by-minute model about tenfold.
const raceEnabled = true
