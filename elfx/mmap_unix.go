//go:build unix

package elfx

import (
	"errors"
	"os"
	"syscall"
)

// errNoMmap says mapping is not possible here; Open then falls back to
// reading through the file.
var errNoMmap = errors.New("mmap unavailable")

// mmapFile maps path read-only. golang.org/x/exp/mmap does not expose the
// mapped bytes, and zero-copy section data needs them, hence syscall.
func mmapFile(path string) ([]byte, *mapping, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer fd.Close() // the mapping outlives the descriptor
	st, err := fd.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	if size == 0 || !st.Mode().IsRegular() || int64(int(size)) != size {
		return nil, nil, errNoMmap // mmap refuses empty files; pipes cannot be mapped
	}
	data, err := syscall.Mmap(int(fd.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, errNoMmap
	}
	return data, &mapping{data: data}, nil
}

// mapping unmaps on Close.
type mapping struct{ data []byte }

func (m *mapping) Close() error {
	if m.data == nil {
		return nil
	}
	d := m.data
	m.data = nil
	return syscall.Munmap(d)
}

// dropPayload releases the resident pages of the file bytes [off, off+n)
// when the file is mapped by Open and not yet closed (never for
// caller-owned bytes, whose pages must not be discarded).
func (f *File) dropPayload(off, n uint64) {
	if m, ok := f.closer.(*mapping); ok && m.data != nil {
		dropPages(m.data, off, n)
	}
}

// dropPages takes the whole pages within data[off:off+n], a range of a
// read-only shared file mapping made by mmapFile, out of the process's
// resident set. Nothing is lost: the bytes stay in the page cache and
// fault back in if read again. Used for compressed section bytes already
// inflated, which would otherwise stay resident as long as the mapping.
func dropPages(data []byte, off, n uint64) {
	page := uint64(os.Getpagesize())
	start := (off + page - 1) &^ (page - 1)
	end := min(off+n, uint64(len(data))) &^ (page - 1)
	if start < end {
		syscall.Madvise(data[start:end], syscall.MADV_DONTNEED) // advice only: errors change nothing
	}
}
