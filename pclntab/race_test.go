//go:build race

package pclntab

// raceEnabled: the tests sample fewer addresses under the race detector,
// which runs them ten times slower.
const raceEnabled = true
