//go:build !race

package elfx

const raceOn = false
