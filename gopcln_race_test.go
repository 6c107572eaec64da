//go:build race

package symbolize_test

// gopclnRace: the Go table tests sample fewer addresses under the race
// detector, which runs them several times slower.
const gopclnRace = true
