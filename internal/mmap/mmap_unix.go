//go:build unix

package mmap

import (
	"os"
	"syscall"
)

// Map maps the regular file f read-only and shared. It returns ErrUnavailable
// for an empty file, a non-regular one, or when the system refuses.
// golang.org/x/exp/mmap does not expose the mapped bytes, and zero-copy
// section data needs them, hence syscall.
func Map(f *os.File) (*Mapping, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size == 0 || !st.Mode().IsRegular() || int64(int(size)) != size {
		return nil, ErrUnavailable // mmap refuses empty files; pipes cannot be mapped
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, ErrUnavailable
	}
	return &Mapping{Data: data}, nil
}

// Close unmaps the file; the bytes must not be used afterwards. A second
// Close does nothing.
func (m *Mapping) Close() error {
	if m.Data == nil {
		return nil
	}
	d := m.Data
	m.Data = nil
	return syscall.Munmap(d)
}
