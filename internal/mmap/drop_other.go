//go:build !linux

package mmap

// Drop does nothing here: only Linux's syscall package has madvise. The
// pages stay resident as long as the mapping, as any read page would.
func (m *Mapping) Drop(off, n uint64) {}

// Release does nothing here, for the same reason: the pages stay until
// Free.
func Release(a []byte, off, n uint64) {}
