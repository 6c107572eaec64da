//go:build !race

package symtab

const raceOn = false
