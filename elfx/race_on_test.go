//go:build race

package elfx

// raceOn: the race detector slows inflating tenfold; big tests trim.
const raceOn = true
