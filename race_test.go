//go:build race

package availmon

// raceEnabled scales down the heaviest load tests under the race detector,
// which slows loopback I/O about tenfold; .ci/run also runs them full size
// without it.
const raceEnabled = true
