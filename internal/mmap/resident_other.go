//go:build !linux

package mmap

// Resident reports what it cannot read off this system: ok is false.
func Resident(b []byte) (n uint64, ok bool) { return 0, false }
