//go:build !race

package availmon

const raceEnabled = false
