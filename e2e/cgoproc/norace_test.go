//go:build !race

package cgoproc

const raceEnabled = false
