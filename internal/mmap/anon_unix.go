//go:build unix

package mmap

import "syscall"

// Anon returns n zeroed bytes of private anonymous memory, outside the Go
// heap, or nil when n is not positive or the system refuses. Pages never
// written cost nothing. Free releases them; until then they stay, whatever
// the garbage collector does.
func Anon(n int) []byte {
	if n <= 0 {
		return nil
	}
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	return b[:n:n]
}

// Free releases memory from Anon; b must be the whole slice Anon returned
// and must not be used afterwards.
func Free(b []byte) {
	if cap(b) > 0 {
		syscall.Munmap(b[:cap(b)]) // a failure leaves the pages mapped: nothing to do about it
	}
}
