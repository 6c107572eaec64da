//go:build race

package cgoproc

// raceEnabled: the tests run under the race detector, and so does prog.
const raceEnabled = true
