//go:build !race

package symbolize_test

const gopclnRace = false
