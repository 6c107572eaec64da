//go:build race

package symtab

// raceOn: sync.Pool drops items at random under the race detector, so
// allocation counts are not checked.
const raceOn = true
