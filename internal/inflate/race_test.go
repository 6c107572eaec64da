//go:build race

package inflate

// raceEnabled: the tests run under the race detector, which makes
// TestLargeStream's 314 MB take over a minute (and its shadow memory
// several times the buffers), so that test skips there.
const raceEnabled = true
