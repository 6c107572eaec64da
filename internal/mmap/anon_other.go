//go:build !unix

package mmap

// Anon returns nil here: callers allocate on the heap instead.
func Anon(n int) []byte { return nil }

// Free does nothing here.
func Free(b []byte) {}
