//go:build race

package main

// raceEnabled: the test runs under the race detector, and so does the
// command it builds.
const raceEnabled = true
