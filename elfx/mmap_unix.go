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
