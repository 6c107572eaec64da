//go:build !race

package pclntab

const raceEnabled = false
