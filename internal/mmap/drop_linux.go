package mmap

import (
	"os"
	"syscall"
)

// Drop takes the whole pages within Data[off:off+n] out of the process's
// resident set. Nothing is lost: the bytes stay in the page cache and fault
// back in if read again. For compressed bytes already inflated, which would
// otherwise stay resident as long as the mapping.
func (m *Mapping) Drop(off, n uint64) {
	if m.Data == nil {
		return
	}
	dontNeed(m.Data, off, n)
}

// Release gives the whole pages within a[off:off+n] back to the system,
// where a is memory from Anon (its start is page-aligned): they read as
// zeros afterwards and cost nothing until written again. For inflated
// bytes that nothing will read again.
func Release(a []byte, off, n uint64) { dontNeed(a, off, n) }

// dontNeed advises the kernel that the whole pages within b[off:off+n]
// are not needed (b starts on a page).
func dontNeed(b []byte, off, n uint64) {
	if off >= uint64(len(b)) {
		return
	}
	page := uint64(os.Getpagesize())
	start := (off + page - 1) &^ (page - 1)
	end := (off + min(n, uint64(len(b))-off)) &^ (page - 1)
	if start < end {
		syscall.Madvise(b[start:end], syscall.MADV_DONTNEED) // advice only: errors change nothing
	}
}
