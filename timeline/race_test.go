//go:build race

package timeline

// raceEnabled scales the property test down under the race detector, which
// slows its second-by-second model about tenfold; without it the test runs
// full size.
const raceEnabled = true
