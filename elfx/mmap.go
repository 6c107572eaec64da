package elfx

import "github.com/symbolize-go/symbolize/internal/mmap"

// dropPayload releases the resident pages of the file bytes [off, off+n)
// when the file is mapped by Open and not yet closed (never for
// caller-owned bytes, whose pages must not be discarded).
func (f *File) dropPayload(off, n uint64) {
	if m, ok := f.closer.(*mmap.Mapping); ok {
		m.Drop(off, n)
	}
}
