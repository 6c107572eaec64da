package elfx

import "github.com/symbolize-go/symbolize/internal/mmap"

// dropPayload releases the resident pages of the file bytes [off, off+n)
// when the file is mapped by Open and not yet closed (never for
// caller-owned bytes, whose pages must not be discarded).
func (f *File) dropPayload(off, n uint64) {
	if d, ok := f.closer.(dropper); ok {
		d.Drop(off, n)
	}
}

// dropper is a mapped file's closer: a *mmap.Mapping from Open, or a
// mapped *locate.File from NewLocated.
type dropper interface{ Drop(off, n uint64) }

var _ dropper = (*mmap.Mapping)(nil)
