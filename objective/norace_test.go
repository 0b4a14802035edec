//go:build !race

package objective_test

const raceEnabled = false
