//go:build !unix

package elfx

import (
	"errors"
	"io"
)

var errNoMmap = errors.New("mmap unavailable")

// mmapFile is not implemented here; Open reads through the file instead.
func mmapFile(string) ([]byte, io.Closer, error) { return nil, nil, errNoMmap }

// dropPayload does nothing where files are not mapped.
func (f *File) dropPayload(off, n uint64) {}
